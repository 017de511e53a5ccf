import { createWriteStream, fstatSync } from "node:fs";
import { Socket } from "node:net";
import { Writable } from "node:stream";
import { isatty, WriteStream } from "node:tty";
import pino from "pino";

export type Logger = pino.Logger;

/**
 * Structured logs on stdout: JSON, which createLogOutput may rewrite for a person (LOG_FORMAT). Secrets never reach
 * a log line because nothing logs headers, bodies or query strings: the request line has fixed fields (see
 * logRequest). A test reads the logs of a real process for them.
 */
export function createLogger(level: pino.LevelWithSilent, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      base: undefined,
    },
    destination,
  );
}

/**
 * How log lines read (LOG_FORMAT): `json`, one object a line, for a collector; `pretty`, `HH:MM:SS INFO message
 * key=value`, for a person. Unset, a terminal gets pretty and anything else (a pipe, a file) JSON.
 */
export const LOG_FORMATS = ["json", "pretty"] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

const LEVEL_NAMES: Record<number, string> = {
  10: "TRACE",
  20: "DEBUG",
  30: "INFO",
  40: "WARN",
  50: "ERROR",
  60: "FATAL",
};

/** A value as key=value shows it: bare when it reads unambiguously so, quoted (JSON) otherwise. */
function shown(value: unknown): string {
  if (typeof value === "string") return /^[^\s"=]+$/.test(value) ? value : JSON.stringify(value);
  if (value !== null && typeof value === "object") return JSON.stringify(value);
  return String(value);
}

/**
 * One JSON log line as a person reads it: `HH:MM:SS LEVEL message key=value ...` in local time (the terminal's
 * clock), an error's stack indented below. Anything that is not a JSON object (the first-start message) passes as
 * it is. Ends with a newline, as the line did.
 */
export function prettyLine(line: string): string {
  if (!line.startsWith("{")) return line;
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line;
  }
  const { level, time, msg, err, ...fields } = record;
  const at = new Date(typeof time === "number" ? time : Date.now());
  const clock = [at.getHours(), at.getMinutes(), at.getSeconds()].map((n) => String(n).padStart(2, "0")).join(":");
  const parts = [clock, LEVEL_NAMES[level as number] ?? String(level), String(msg ?? "")];
  for (const [key, value] of Object.entries(fields)) parts.push(`${key}=${shown(value)}`);
  const error = err as { message?: string; stack?: string } | undefined;
  if (error?.message !== undefined) parts.push(`err=${shown(error.message)}`);
  const stack = error?.stack ? `\n${error.stack.replace(/^/gm, "    ")}` : "";
  return `${parts.join(" ")}${stack}\n`;
}

/** How many bytes of log lines may wait for a reader before new lines are dropped. */
export const LOG_BUFFER_BYTES = 1024 * 1024;

/**
 * Where a server process writes its log lines: a file descriptor (stdout), written without ever blocking the process.
 * Lines wait in memory while the reader is slow, up to `LOG_BUFFER_BYTES`; past that, and once the reader is gone,
 * they are dropped and counted, and a line says how many once the reader catches up. So a log pipe nobody reads can
 * stall neither a request, a check nor the exit (issue 34: a synchronous flush on a full pipe held the process
 * forever, deaf to further signals).
 */
export interface LogOutput extends pino.DestinationStream {
  write(line: string): void;
  /** Resolves once every line written so far has left, or after `ms`; true when they all left. */
  drain(ms: number): Promise<boolean>;
  /** Lines dropped so far: written while the buffer was full or the reader gone. */
  readonly dropped: number;
}

/**
 * Pipes and sockets are written through the event loop (non-blocking, as Node's own stdout on a pipe): nothing waits
 * in a thread for a reader that never reads. Terminals and files are written as Node writes them.
 */
function streamOf(fd: number): Writable {
  let stat: ReturnType<typeof fstatSync>;
  try {
    stat = fstatSync(fd);
  } catch {
    // A closed stdout (`>&-`): nowhere to write, and no reason not to serve.
    return new Writable({ write: (_chunk, _encoding, done) => done() });
  }
  if (stat.isFIFO() || stat.isSocket()) return new Socket({ fd, readable: false, writable: true });
  if (isatty(fd)) return new WriteStream(fd);
  return createWriteStream("", { fd, autoClose: false });
}

/** Lines on file descriptor `fd`, as `format` says (see LOG_FORMATS; unset: pretty on a terminal, JSON otherwise). */
export function createLogOutput(fd = 1, bufferBytes = LOG_BUFFER_BYTES, format?: LogFormat): LogOutput {
  const stream = streamOf(fd);
  const shape = (format ?? (isatty(fd) ? "pretty" : "json")) === "pretty" ? prettyLine : (line: string) => line;
  let dropped = 0;
  let unreported = 0;
  let gone = false;
  let corked = false;
  const uncork = () => {
    corked = false;
    stream.uncork();
  };
  // EPIPE and the like: the reader is gone for good; the process goes on without its log.
  stream.on("error", () => {
    gone = true;
  });
  stream.on("drain", () => {
    if (unreported === 0 || gone) return;
    const line = {
      level: 40,
      time: Date.now(),
      dropped: unreported,
      msg: "log lines dropped: the log output was not read",
    };
    unreported = 0;
    stream.write(shape(`${JSON.stringify(line)}\n`));
  });
  return {
    write(written: string) {
      const line = shape(written);
      if (gone || stream.writableLength + line.length > bufferBytes) {
        dropped++;
        unreported++;
        return;
      }
      // The lines of one turn of the event loop leave in one write (writev), not one system call each.
      if (!corked) {
        corked = true;
        stream.cork();
        setImmediate(uncork);
      }
      stream.write(line);
    },
    drain(ms: number) {
      if (gone) return Promise.resolve(false);
      if (stream.writableLength === 0) return Promise.resolve(true);
      return new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(false), ms);
        // Written in order: this empty chunk's callback runs once every line before it has left.
        stream.write("", (error) => {
          clearTimeout(timer);
          resolve(!error);
        });
      });
    },
    get dropped() {
      return dropped;
    },
  };
}

/**
 * A server process's log as its configuration asks (LOG_LEVEL, LOG_FORMAT): the output on stdout, never blocking,
 * and the logger that writes to it.
 */
export function createProcessLog(config: { logLevel: pino.LevelWithSilent; logFormat?: LogFormat | undefined }): {
  output: LogOutput;
  logger: Logger;
} {
  const output = createLogOutput(1, LOG_BUFFER_BYTES, config.logFormat);
  return { output, logger: createLogger(config.logLevel, output) };
}
