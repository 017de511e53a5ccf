import pino from "pino";

export type Logger = pino.Logger;

/**
 * Structured JSON logs on stdout. Secrets never reach a log line because nothing logs headers, bodies or query
 * strings: the request line has fixed fields (see logRequest). A test reads the logs of a real process for them.
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
