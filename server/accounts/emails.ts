import { escapeHtml } from "../html.ts";

/** An account e-mail: a plain-text part and an HTML part saying the same. */
export interface AccountEmail {
  subject: string;
  text: string;
  html: string;
  headers: Record<string, string>;
}

/** The part of the mail transport account e-mails use (server/anon/mail.ts's Mailer is one). */
export interface AccountMailer {
  send(message: AccountEmail & { to: string }): Promise<unknown>;
}

function email(
  subject: string,
  lines: string[],
  action: { label: string; url: string },
  after: string[],
): AccountEmail {
  const text = [...lines, "", action.url, "", ...after, "", "-- ", "Porchlight"].join("\n");
  const p = (line: string) => `<p style="margin:0 0 16px;">${escapeHtml(line)}</p>`;
  const html = [
    '<!doctype html><html lang="en"><head><meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(subject)}</title></head>`,
    '<body style="margin:0;padding:24px;background:#f6f7f9;font:16px/1.5 system-ui,sans-serif;color:#1f2328;">',
    '<div style="max-width:560px;margin:0 auto;background:#ffffff;border-radius:8px;padding:24px;">',
    `<h1 style="font-size:20px;margin:0 0 16px;">${escapeHtml(subject)}</h1>`,
    ...lines.filter(Boolean).map(p),
    `<p style="margin:24px 0;"><a href="${escapeHtml(action.url)}" style="display:inline-block;padding:12px 20px;border-radius:6px;background:#0b57d0;color:#ffffff;text-decoration:none;font-weight:600;">${escapeHtml(action.label)}</a></p>`,
    ...after.filter(Boolean).map(p),
    "</div></body></html>",
  ].join("");
  return { subject, text, html, headers: { "Auto-Submitted": "auto-generated" } };
}

/** A password reset: the link works once, for an hour. */
export function resetEmail(url: string): AccountEmail {
  return email(
    "Reset your Porchlight password",
    ["Someone (hopefully you) asked to reset the password of this address on Porchlight."],
    { label: "Choose a new password", url },
    [
      "The link works once, within an hour. Choosing a new password signs you out everywhere else.",
      "If you did not ask for this, ignore this e-mail: your password stays as it is.",
    ],
  );
}

/** An invitation to a workspace with a role: the link works once, for 7 days. */
export function invitationEmail(input: {
  url: string;
  inviter: string;
  workspace: string;
  role: string;
}): AccountEmail {
  return email(
    `You are invited to ${input.workspace} on Porchlight`,
    [`${input.inviter} invited you to the workspace ${input.workspace} on Porchlight, as ${input.role}.`],
    { label: "Accept and choose a password", url: input.url },
    ["The link works once, within 7 days. If you did not expect this, ignore this e-mail."],
  );
}
