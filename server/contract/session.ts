import { z } from "zod";
import { AccountEmail, PERMISSIONS, PLANS, ROLES } from "./account.ts";
import { Timestamp } from "./common.ts";

/**
 * A dashboard session ends after this long unused (idle) and this long after sign-in whatever its use (absolute):
 * Grafana's defaults, for a tool that is left open on a wall screen for days and should still ask again monthly.
 */
export const SESSION_IDLE_MS = 7 * 24 * 3600_000;
export const SESSION_MAX_MS = 30 * 24 * 3600_000;

/**
 * A dashboard password: 12 to 128 characters. 12 sits between NIST SP 800-63B's floor with a second factor (8) and
 * without one (15); the KDF is scrypt, so length is what makes a stolen hash expensive. No other composition rule.
 */
export const NewPassword = z
  .string()
  .min(12, "Use at least 12 characters.")
  .max(128, "Use at most 128 characters.")
  .meta({ description: "12 to 128 characters", example: "correct horse battery" });

/** A one-time link's secret, as the link carries it after `#token=`. */
export const LinkToken = z
  .string()
  .regex(/^[A-Za-z0-9_-]{43}$/, "This link is not valid: use the whole link from the e-mail or the console.")
  .meta({
    description: "The token of a setup, reset or invitation link (after #token=)",
    example: "q1V2x".repeat(8).concat("abc"),
  });

const TotpCode = z
  .string()
  .regex(/^\d{6}$/, "Enter the 6 digits the authenticator app shows.")
  .meta({ description: "A 6-digit code of the authenticator app", example: "123456" });

export const SignIn = z
  .strictObject({
    email: z.string().max(254).meta({ description: "The member's e-mail address", example: "owner@example.com" }),
    password: z.string().max(1024).meta({ description: "The member's password", example: "correct horse battery" }),
    totp: TotpCode.optional(),
  })
  .meta({ id: "SignInInput" });

export const Me = z
  .object({
    id: z.string(),
    email: z.string(),
    role: z.enum(ROLES),
    permissions: z
      .array(z.enum(PERMISSIONS))
      .meta({ description: "What the role allows; the dashboard hides the rest" }),
    workspaceId: z.string(),
    plan: z.enum(PLANS),
    totpEnabled: z.boolean(),
  })
  .meta({ id: "Me" });

export const Session = z
  .object({
    user: Me,
    csrfToken: z.string().meta({
      description:
        "Send it as X-CSRF-Token on every write made with the session cookie; a write without it (or from another site) is refused 403",
    }),
    expiresAt: Timestamp.meta({
      description: "When the session ends at the latest (it also ends after 7 days unused)",
    }),
  })
  .meta({ id: "Session" });

export const SetPassword = z
  .strictObject({
    token: LinkToken,
    password: NewPassword,
    totp: TotpCode.optional().meta({ description: "With a reset link, when the member's second factor is on" }),
  })
  .meta({ id: "SetPasswordInput" });

export const ChangePassword = z
  .strictObject({
    currentPassword: z.string().max(1024).meta({ description: "The password now" }),
    password: NewPassword,
  })
  .meta({ id: "ChangePasswordInput" });

export const ResetRequest = z
  .strictObject({ email: AccountEmail.meta({ description: "The member's e-mail address" }) })
  .meta({ id: "ResetRequest" });

export const LinkInfo = z
  .object({
    kind: z.enum(["setup", "reset", "invite"]),
    email: z.string(),
    role: z.enum(ROLES).nullable(),
    workspace: z.string().meta({ description: "The workspace's name" }),
  })
  .meta({ id: "LinkInfo" });

export const LinkQuery = z.strictObject({ token: LinkToken });

export const TotpSetup = z
  .object({
    secret: z.string().meta({ description: "Base32, for typing into an authenticator app" }),
    uri: z.string().meta({ description: "The otpauth:// URI, for a QR code" }),
    sealed: z.string().meta({ description: "Send back with the first code to turn the second factor on" }),
  })
  .meta({ id: "TotpSetup" });

export const TotpEnable = z
  .strictObject({
    sealed: z.string().max(512).meta({ description: "The `sealed` value of the setup answer" }),
    code: TotpCode,
  })
  .meta({ id: "TotpEnable" });

export const TotpDisable = z.strictObject({ code: TotpCode }).meta({ id: "TotpDisable" });

export const MemberRole = z.enum(["admin", "editor", "viewer"]);

export const Member = z
  .object({
    id: z.string(),
    email: z.string(),
    role: z.enum(ROLES),
    createdAt: Timestamp,
    hasPassword: z.boolean().meta({ description: "Whether the member can sign in to the dashboard" }),
    totpEnabled: z.boolean(),
  })
  .meta({ id: "Member" });

export const Invitation = z
  .object({
    id: z.string(),
    email: z.string(),
    role: MemberRole,
    createdAt: Timestamp,
    expiresAt: Timestamp,
  })
  .meta({ id: "Invitation" });

/** The workspace's members and pending invitations (GET /members). */
export const MemberList = z.object({ members: z.array(Member), invitations: z.array(Invitation) });
export type MemberList = z.infer<typeof MemberList>;

export const InvitationCreate = z
  .strictObject({ email: AccountEmail.meta({ description: "Where the invitation goes" }), role: MemberRole })
  .meta({ id: "InvitationCreate" });

export const MemberPatch = z.strictObject({ role: MemberRole }).meta({ id: "MemberPatch" });

export const MemberId = z.string().regex(/^[0-9a-f]{24}$/, "is not a member id");
export const InvitationId = z.string().regex(/^lnk_[0-9a-f]{16}$/, "is not an invitation id");
export const TokenId = z.string().regex(/^tok_[0-9a-f]{16}$/, "is not a token id");

export const ApiToken = z
  .object({
    id: z.string(),
    name: z.string(),
    createdAt: Timestamp,
    lastUsedAt: Timestamp.nullable(),
    revokedAt: Timestamp.nullable(),
  })
  .meta({ id: "ApiToken" });

export const ApiTokenCreate = z
  .strictObject({
    name: z.string().trim().min(1).max(100).meta({ description: "What the token is for", example: "deploy script" }),
  })
  .meta({ id: "ApiTokenCreate" });

export const NewApiToken = ApiToken.extend({
  token: z.string().meta({ description: "The token itself, in this answer only: store it now" }),
}).meta({ id: "NewApiToken" });
