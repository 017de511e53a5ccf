/** The API's shapes, as the dashboard reads them (types only: no code from the server reaches the bundle). */
import type { z } from "zod";
import type {
  FieldError as FieldErrorSchema,
  Pagination as PaginationSchema,
} from "../../../server/contract/common.ts";
import type { Me, Session } from "../../../server/contract/session.ts";
import type { Site, SiteDetail, SiteOverview } from "../../../server/contract/site.ts";
import type {
  AffectedStatus,
  Incident,
  IncidentImpact,
  IncidentPolicy,
  OwnerIncident,
  StatusPage,
} from "../../../server/contract/status-page.ts";

export type { Incident, Site, SiteDetail };
export type MeInfo = z.infer<typeof Me>;
export type SessionInfo = z.infer<typeof Session>;
export type Page = z.infer<typeof StatusPage>;
export type { AffectedStatus, IncidentImpact as Impact, IncidentPolicy, OwnerIncident };

export type FieldError = z.infer<typeof FieldErrorSchema>;
export type Pagination = z.infer<typeof PaginationSchema>;

export type { SiteOverview };
export type OverviewDay = SiteOverview["days"][number];
