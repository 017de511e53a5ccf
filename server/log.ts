import pino from "pino";

export type Logger = pino.Logger;

/**
 * Structured JSON logs on stdout. Secrets never reach a log line: handlers log no headers or bodies, and the
 * redaction list is the safety net for the obvious field names.
 */
export function createLogger(level: pino.LevelWithSilent, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      base: undefined,
      redact: {
        // Static paths only: wildcard redaction costs every log line a few microseconds.
        paths: ["authorization", "password", "token", "headers.authorization", 'headers["x-status-page-password"]'],
        censor: "[redacted]",
      },
    },
    destination,
  );
}
