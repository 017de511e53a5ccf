/** The API's shapes, as the dashboard reads them (types only: no code from the server reaches the bundle). */
import type { z } from "zod";
import type { Me, Session } from "../../server/contract/session.ts";
import type { Site, SiteDetail } from "../../server/contract/site.ts";
import type { Incident, StatusPage } from "../../server/contract/status-page.ts";

export type { Incident, Site, SiteDetail };
export type MeInfo = z.infer<typeof Me>;
export type SessionInfo = z.infer<typeof Session>;
export type Page = z.infer<typeof StatusPage>;

export interface FieldError {
  field: string;
  message: string;
}

export interface Pagination {
  page: number;
  perPage: number;
  total: number;
  totalPages: number;
}

export interface OverviewDay {
  day: string;
  uptime: number | null;
  responseMs: number | null;
}

export interface SiteOverview {
  site: Site;
  uptime: number | null;
  days: OverviewDay[];
}
