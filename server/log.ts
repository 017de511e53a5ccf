import pino from "pino";

export type Logger = pino.Logger;

/**
 * Structured JSON logs on stdout. Secrets never reach a log line: handlers log no headers or bodies, and the
 * redaction list is the safety net for anything that slips through.
 */
export function createLogger(level: pino.LevelWithSilent, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      base: undefined,
      redact: {
        paths: [
          "authorization",
          "password",
          "token",
          "*.authorization",
          "*.password",
          "*.token",
          'headers["x-status-page-password"]',
          "*.headers.authorization",
        ],
        censor: "[redacted]",
      },
    },
    destination,
  );
}
