/** The optional second factor, an authenticator app's TOTP: set up, turned on, turned off. */
import { newTotpSecret, totpUri } from "../../accounts/sign-in.ts";
import { Envelope, envelope } from "../../contract/common.ts";
import { Me, TotpDisable, TotpEnable, TotpSetup } from "../../contract/session.ts";
import { badRequest, conflict } from "../../http/errors.ts";
import { route } from "../../http/route.ts";
import { meOf, type SessionKit, sessionOnly } from "./kit.ts";

export function totpRoutes({ checkCode, openTotp, store, secrets }: SessionKit) {
  return [
    route({
      method: "post",
      path: "/public/v1/me/totp/setup",
      operationId: "startTotp",
      summary: "Start turning on a TOTP second factor",
      description:
        "A new secret for an authenticator app, and a sealed copy to send back with its first code (POST /public/v1/me/totp). Nothing changes until then. Only with a dashboard session (an API token gets 403).",
      tag: "Account",
      access: "token",
      response: { status: 200, description: "A new secret", schema: Envelope(TotpSetup) },
      errors: [401, 403],
      handler: async ({ principal }) => {
        sessionOnly(principal, "Setting up a second factor");
        const secret = newTotpSecret();
        const sealed = secrets.seal(`${principal.userId}:${secret}`);
        return envelope(200, "Scan the code, then send its first 6 digits", {
          secret,
          uri: totpUri(secret, principal.email, "Porchlight"),
          sealed,
        });
      },
    }),
    route({
      method: "post",
      path: "/public/v1/me/totp",
      operationId: "enableTotp",
      summary: "Turn the TOTP second factor on",
      description:
        "With the sealed secret of the setup answer and a current code from the app. Sign-in then asks for a code.",
      tag: "Account",
      access: "token",
      body: TotpEnable,
      response: { status: 200, description: "On", schema: Envelope(Me) },
      errors: [400, 401, 403, 409],
      handler: async ({ body, principal, c }) => {
        sessionOnly(principal, "Turning the second factor on");
        if ((await store.sessions.credentialsById(principal.userId))?.totpSecret) {
          throw conflict(
            "code",
            "the second factor is on already: turn it off (with a code) before setting up another",
          );
        }
        let secret: string | undefined;
        try {
          const [owner, value] = secrets.open(body.sealed).split(":");
          if (owner === principal.userId) secret = value;
        } catch {
          // Not sealed by this server: refused below.
        }
        if (!secret)
          throw badRequest("Invalid body: sealed is not a setup of yours", [
            { field: "sealed", message: "is not a setup of yours" },
          ]);
        await checkCode(c, principal.email, secret, body.code);
        await store.sessions.setTotpSecret(principal.userId, secrets.seal(secret));
        return envelope(200, "Second factor on", meOf(principal, true));
      },
    }),
    route({
      method: "post",
      path: "/public/v1/me/totp/disable",
      operationId: "disableTotp",
      summary: "Turn the TOTP second factor off",
      description: "With a current code from the app. Only with a dashboard session (an API token gets 403).",
      tag: "Account",
      access: "token",
      body: TotpDisable,
      response: { status: 200, description: "Off", schema: Envelope(Me) },
      errors: [400, 401, 403],
      handler: async ({ body, principal, c }) => {
        sessionOnly(principal, "Turning the second factor off");
        const user = await store.sessions.credentialsById(principal.userId);
        const secret = openTotp(user?.totpSecret ?? null);
        if (secret === null) return envelope(200, "Second factor off", meOf(principal, false));
        await checkCode(c, principal.email, secret, body.code);
        await store.sessions.setTotpSecret(principal.userId, null);
        return envelope(200, "Second factor off", meOf(principal, false));
      },
    }),
  ];
}
