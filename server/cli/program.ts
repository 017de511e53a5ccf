import { Command, CommanderError, InvalidArgumentError, Option } from "commander";
import { z } from "zod";
import { AccountError } from "../accounts/accounts.ts";
import { type Config, ConfigError, ConfigSchema, loadConfig, Region } from "../config.ts";
import { PLANS, ROLES } from "../contract/account.ts";
import type { RdapBootstrap } from "../engine/domain.ts";
import type { Store } from "../store/store.ts";
import { type Io, tokenCreate, tokenList, tokenRevoke, userCreate, userLink } from "./accounts.ts";
import type { ImportOptions } from "./imports.ts";
import { Refusal } from "./refusal.ts";

export type { Io };

/**
 * What the commands act on. main.ts passes the real ones, loading the server only for the commands that need it
 * (so that `--help` and `--version` answer at once); tests pass their own store.
 */
export interface CliDeps {
  io: Io;
  /** The environment the configuration is read from; the flags that stand for a variable override it. */
  env: Record<string, string | undefined>;
  /** What a relative data directory is relative to. */
  cwd: string;
  version: string;
  now: () => Date;
  /** Runs `use` with the store the configuration names, open for its duration. */
  withStore: <T>(config: Config, use: (store: Store) => Promise<T>) => Promise<T>;
  /** Starts the server; resolves once it listens (cli/serve.ts). */
  serve: (config: Config) => Promise<void>;
  /** Starts an engine alone for a region; resolves once it runs (cli/worker.ts). */
  work: (config: Config, region: string) => Promise<void>;
  /** Downloads the RDAP bootstrap file from `from` (default IANA's) into the data directory. */
  refreshRdap: (config: Config, from: string | undefined) => Promise<RdapBootstrap>;
}

/** Exit codes: 0 done, 1 refused (the reason on stderr), 2 usage error (the message and the usage on stderr). */
const USAGE_ERROR = { exitCode: 2, code: "porchlight.usage" } as const;

/** A member's roles: the owner is made with the workspace, never added to one. */
const MEMBER_ROLES = ROLES.filter((role) => role !== "owner");

/** Parses an option's value with `schema`; an empty or bad value is a usage error naming the option. */
function checked(schema: z.ZodType): (value: string) => string {
  return (value) => {
    if (value === "") throw new InvalidArgumentError("It must not be empty.");
    const result = schema.safeParse(value);
    if (!result.success) throw new InvalidArgumentError(`${result.error.issues[0]?.message ?? "Invalid"}.`);
    return value;
  };
}

/** The flags that stand for an environment variable: they override it and are checked by its ConfigSchema entry. */
const ENV_FLAGS = {
  port: { flags: "--port <port>", variable: "PORT", description: "the HTTP port" },
  host: { flags: "--host <address>", variable: "HOST", description: "the address to listen on" },
  dataDir: {
    flags: "--data-dir <dir>",
    variable: "PORCHLIGHT_DATA_DIR",
    description: "where the SQLite database lives",
  },
} as const;

function envOption(key: keyof typeof ENV_FLAGS): Option {
  const { flags, variable, description } = ENV_FLAGS[key];
  return new Option(flags, `${description} (overrides ${variable})`).argParser(checked(ConfigSchema.shape[variable]));
}

/**
 * What `argv` asks of commander: no command is `serve`, and `help A B` is `A B --help` at any depth (commander's own
 * help command takes one name). An unknown name after `help` is a usage error, never a run of the words after it.
 */
function expand(program: Command, argv: readonly string[]): string[] {
  if (argv.length === 0) return ["serve"];
  if (argv[0] !== "help" || argv.length < 2) return [...argv];
  let command: Command = program;
  for (const name of argv.slice(1)) {
    const sub = command.commands.find((c) => c.name() === name);
    if (!sub) command.error(`error: unknown command '${name}'`, USAGE_ERROR);
    command = sub;
  }
  return [...argv.slice(1), "--help"];
}

function buildProgram(deps: CliDeps): Command {
  const { io } = deps;
  const config = (options: Record<string, unknown>): Config => {
    const overrides = Object.entries(ENV_FLAGS)
      .filter(([key]) => options[key] !== undefined)
      .map(([key, { variable }]) => [variable, String(options[key])]);
    return loadConfig({ ...deps.env, ...Object.fromEntries(overrides) }, deps.cwd);
  };
  /**
   * Sets the action of `command`. The account functions name the flag in a refusal about a flag's value (`--email:
   * Invalid email address`, `--role goes with --join`): that is how the command was typed, so a usage error.
   */
  const act = <O extends Record<string, unknown>>(
    command: Command,
    body: (options: O, args: string[]) => Promise<void>,
  ) =>
    command.action(async () => {
      try {
        await body(command.opts<O>(), command.processedArgs);
      } catch (error) {
        const flag = error instanceof AccountError ? /^--[a-z-]+/.exec(error.message)?.[0] : undefined;
        if (flag && command.options.some((option) => option.long === flag)) {
          command.error(`error: ${(error as Error).message}`, USAGE_ERROR);
        }
        throw error;
      }
    });

  const program = new Command("porchlight")
    .description("Site monitoring with status pages.")
    // Settings that subcommands inherit must come before them.
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.out(text.replace(/\n$/, "")),
      writeErr: (text) => io.err(text.replace(/\n$/, "")),
    })
    .showHelpAfterError()
    .version(deps.version, "-V, --version", "prints the version")
    .helpOption("-h, --help", "prints this help")
    .helpCommand("help [command]", "prints the help of a command")
    .addHelpText(
      "after",
      [
        "",
        "Without a command, porchlight runs serve. The configuration comes from the",
        "environment (PORT, HOST, PORCHLIGHT_DATA_DIR, DATABASE_URL...: see the README);",
        "a command's flags override it.",
        "",
        "Exit codes: 0 done, 1 refused (the reason on stderr), 2 usage error.",
      ].join("\n"),
    );

  act(
    program
      .command("serve")
      .description("the API, the hosted pages and an engine for PORCHLIGHT_REGION in one process (npm start)")
      .addOption(envOption("port"))
      .addOption(envOption("host"))
      .addOption(envOption("dataDir")),
    (options) => deps.serve(config(options)),
  );

  act<{ region?: string }>(
    program
      .command("worker")
      .description("an engine alone, checking the sites of its region")
      .addOption(
        new Option("--region <region>", "the region it checks from (default PORCHLIGHT_REGION)").argParser(
          checked(Region),
        ),
      )
      .addOption(envOption("dataDir")),
    async (options) => {
      const loaded = config(options);
      await deps.work(loaded, options.region ?? loaded.region);
    },
  );

  const rdap = program
    .command("rdap")
    .description("the RDAP bootstrap file, which names the server that knows a domain");
  const refresh = rdap
    .command("refresh")
    .description("downloads IANA's RDAP bootstrap file into the data directory, replacing the copy Porchlight ships")
    .addOption(
      new Option("--from <url>", "where to download it from (default https://data.iana.org/rdap/dns.json)").argParser(
        checked(z.url({ protocol: /^https?$/ })),
      ),
    )
    .addOption(envOption("dataDir"));
  act<{ from?: string }>(refresh, async (options) => {
    const loaded = config(options);
    let saved: RdapBootstrap;
    try {
      saved = await deps.refreshRdap(loaded, options.from);
    } catch (error) {
      throw new Refusal(`The RDAP bootstrap was not refreshed: ${(error as Error).message}`);
    }
    io.out(
      `Saved the RDAP bootstrap (${saved.services.length} services, published ${saved.publication ?? "unknown"}) to ${loaded.dataDir}`,
    );
  });

  const user = program.command("user").description("users: owners of a workspace and its members");
  const userCreateCommand = user
    .command("create")
    .description("a user who owns a new workspace, or with --join a member of another user's workspace")
    .requiredOption("--email <email>", "the user's e-mail address")
    .addOption(new Option("--plan <plan>", "the new workspace's plan (default free)").choices(PLANS))
    .option("--join <owner-email>", "makes the user a member of the workspace of the user with this e-mail")
    .addOption(new Option("--role <role>", "the member's role, with --join (default viewer)").choices(MEMBER_ROLES))
    .addOption(envOption("dataDir"));
  act<{ email: string; plan?: string; join?: string; role?: string }>(userCreateCommand, async (options) => {
    const { email, plan, join, role } = options;
    await deps.withStore(config(options), (store) => userCreate(store, { email, plan, join, role }, io, deps.now()));
  });

  const userLinkCommand = user
    .command("link")
    .description(
      "a new one-time link (valid 7 days) for a user to choose a dashboard password, printed alone on stdout; earlier unused links stop working",
    )
    .requiredOption("--email <email>", "the user's e-mail address")
    .addOption(envOption("dataDir"));
  act<{ email: string }>(userLinkCommand, async (options) => {
    const loaded = config(options);
    await deps.withStore(loaded, (store) => userLink(store, options.email, loaded.publicUrl, io, deps.now()));
  });

  const token = program.command("token").description("API tokens: create, list, revoke");
  const tokenCreateCommand = token
    .command("create")
    .description("a new API token for a user, printed alone on stdout (shown once)")
    .requiredOption("--email <email>", "the user's e-mail address")
    .option("--name <name>", "what the token is for (default cli)")
    .addOption(envOption("dataDir"));
  act<{ email: string; name?: string }>(tokenCreateCommand, async (options) => {
    await deps.withStore(config(options), (store) => tokenCreate(store, options.email, options.name, io, deps.now()));
  });
  const tokenListCommand = token
    .command("list")
    .description("a user's tokens: ID, name, created, last used, state")
    .requiredOption("--email <email>", "the user's e-mail address")
    .addOption(envOption("dataDir"));
  act<{ email: string }>(tokenListCommand, async (options) => {
    await deps.withStore(config(options), (store) => tokenList(store, options.email, io));
  });
  const tokenRevokeCommand = token
    .command("revoke")
    .description("revokes a token: the next request with it answers 401")
    .argument("<id>", "the token's ID (see token list)")
    .addOption(envOption("dataDir"));
  act(tokenRevokeCommand, async (options, [id]) => {
    await deps.withStore(config(options), (store) => tokenRevoke(store, id as string, io, deps.now()));
  });

  const imports = program
    .command("import")
    .description(
      "moves monitors, status pages, incidents and maintenance in from another tool; twice creates nothing twice",
    );
  const importFrom = (
    name: "uptime-kuma" | "statuspage" | "gatus",
    argument: string,
    description: string,
    extra: (command: Command) => Command = (c) => c,
  ) => {
    const command = extra(
      imports
        .command(name)
        .description(description)
        .argument(argument)
        .requiredOption("--email <email>", "an owner, admin or editor of the workspace that receives it")
        .option("--dry-run", "prints what would be created and skipped; writes nothing")
        .option("--json", "prints the report as JSON"),
    ).addOption(envOption("dataDir"));
    act<ImportOptions>(command, async (options, [file]) => {
      const loaded = config(options);
      const { importCommand } = await import("./imports.ts");
      await deps.withStore(loaded, (store) =>
        importCommand(store, loaded, name, file as string, options, io, deps.now()),
      );
    });
  };
  importFrom("uptime-kuma", "<kuma.db>", "Uptime Kuma 1.23 or 2.x, from its SQLite database (opened read-only)");
  importFrom(
    "statuspage",
    "<source>",
    "Atlassian Statuspage: a page's address (its /api/v2/ JSON), a folder of saved files, or summary.json",
    (c) =>
      c
        .option("--slug <slug>", "the new page's slug (default: from its name)")
        .option(
          "--bind <component=url>",
          "the address to check for a component, by name or id (repeatable); others are paused until given one",
          (value: string, previous: string[] = []) => [...previous, value],
        ),
  );
  importFrom("gatus", "<config.yaml>", "Gatus, from its YAML configuration", (c) =>
    c.option("--slug <slug>", "the new page's slug (default: from ui.title)"),
  );

  return program;
}

/**
 * Runs the `porchlight` command line. Answers the exit code once the command is done; `serve` and `worker` answer 0
 * once they run, and their process exits when they stop (cli/shutdown.ts).
 */
export async function runCli(argv: readonly string[], deps: CliDeps): Promise<number> {
  const program = buildProgram(deps);
  try {
    await program.parseAsync(expand(program, argv), { from: "user" });
    return 0;
  } catch (error) {
    // Commander has printed its message and the usage already; exit code 0 is --help and --version.
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : USAGE_ERROR.exitCode;
    if (error instanceof AccountError || error instanceof ConfigError || error instanceof Refusal) {
      deps.io.err(error.message);
      return 1;
    }
    throw error;
  }
}
