import { parseArgs } from "node:util";
import { AccountError, createToken, createUser } from "../accounts/accounts.ts";
import type { Store } from "../store/store.ts";

export const USAGE = `Usage: porchlight <command>

  serve                                   API, hosted pages and engine in one process (what npm start runs)
  worker [--region R]                     an engine alone, checking from region R (default PORCHLIGHT_REGION)
  rdap refresh [--from URL]               downloads IANA's RDAP bootstrap file into the data directory
  user create --email E [--plan P]        a user owning a new workspace (plan free|solo|team|stack, default free)
  user create --email E --join OWNER_EMAIL [--role R]
                                          a member of OWNER_EMAIL's workspace (role admin|editor|viewer, default viewer)
  token create --email E [--name N]       prints a new API token alone on stdout (shown once)
  token list --email E                    the user's tokens: id, name, created, last used, state
  token revoke ID                         revokes a token at once

Works on the data directory (PORCHLIGHT_DATA_DIR) or DATABASE_URL, like the server.`;

export class UsageError extends Error {}

export interface Io {
  out: (line: string) => void;
  err: (line: string) => void;
}

/** Runs one account command; returns the exit code (0 ok, 1 refused, 2 usage). */
export async function runCommand(store: Store, argv: string[], io: Io, now = () => new Date()): Promise<number> {
  const [group, action, ...rest] = argv;
  try {
    const { values, positionals } = parseArgs({
      args: rest,
      allowPositionals: true,
      strict: true,
      options: {
        email: { type: "string" },
        plan: { type: "string" },
        join: { type: "string" },
        role: { type: "string" },
        name: { type: "string" },
      },
    });
    const need = (v: string | undefined, flag: string) => {
      if (!v) throw new UsageError(`${group} ${action} needs ${flag}`);
      return v;
    };
    const command = `${group} ${action}`;
    if (command === "user create") {
      const user = await createUser(
        store,
        { email: need(values.email, "--email"), plan: values.plan, join: values.join, role: values.role },
        now(),
      );
      io.out(`Created ${user.email}: ${user.role} of workspace ${user.workspaceId} (plan ${user.plan})`);
      return 0;
    }
    if (command === "token create") {
      const { token } = await createToken(store, need(values.email, "--email"), values.name, now());
      io.out(token);
      return 0;
    }
    if (command === "token list") {
      const user = await store.findUserByEmail(need(values.email, "--email"));
      if (!user) throw new AccountError(`No user with e-mail ${values.email}`);
      io.out(["ID", "NAME", "CREATED", "LAST USED", "STATE"].join("\t"));
      for (const t of await store.listTokens(user.id)) {
        const state = t.revoked_at ? `revoked ${t.revoked_at}` : "active";
        io.out([t.id, t.name, t.created_at, t.last_used_at ?? "never", state].join("\t"));
      }
      return 0;
    }
    if (command === "token revoke") {
      const id = positionals[0];
      if (!id || positionals.length > 1) throw new UsageError("token revoke takes one token ID");
      const result = await store.revokeToken(id, now().toISOString());
      if (result === "missing") throw new AccountError(`No token with ID ${id}`);
      io.out(result === "revoked" ? `Revoked ${id}` : `${id} was already revoked`);
      return 0;
    }
    throw new UsageError(`Unknown command: ${argv.join(" ") || "(none)"}`);
  } catch (error) {
    if (error instanceof AccountError) {
      io.err(error.message);
      return 1;
    }
    if (error instanceof UsageError || (error as { code?: string }).code?.startsWith("ERR_PARSE_ARGS")) {
      io.err(`${(error as Error).message}\n\n${USAGE}`);
      return 2;
    }
    throw error;
  }
}
