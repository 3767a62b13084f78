/** What the CLI takes from its process (arguments' streams, environment, clock, zone), and its two ways out besides a result. */

/**
 * Everything the CLI takes from its process, passed in: the tests run it in process with their own
 * clock, zone, input and output, and src/cli.ts wires it to the real ones.
 */
export interface CliIo {
  env: NodeJS.ProcessEnv;
  stdin: NodeJS.ReadableStream;
  /** Where a token is typed without echo: the process's terminal, when standard input is one. */
  terminal?: NodeJS.WriteStream | undefined;
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
  now(): Date;
  /** The zone the audit's table is shown in: the reader's, i.e. the machine's for a person at a terminal. */
  timeZone: string;
  /**
   * From this call on, a request to stop (SIGINT, SIGTERM) settles the promise instead of ending
   * the process: `service` calls it before it says it is listening, and runs until then.
   */
  untilStopped(): Promise<void>;
  /** Calls `report` whenever asked for figures (SIGUSR2) until the returned function is called. */
  onReport(report: () => void): () => void;
}

export class UsageError extends Error {}

/** The person at the terminal gave up (Ctrl-C): exit 130, as a shell reports an interrupted command. */
export class Cancelled extends Error {}
