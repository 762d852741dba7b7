/** Graceful shutdown on SIGINT/SIGTERM for `svc serve`; a second signal exits at once. */

/** What the handler needs from `process`, injectable for tests. */
export interface SignalProcess {
  once(signal: NodeJS.Signals, listener: () => void): unknown;
  removeListener(signal: NodeJS.Signals, listener: () => void): unknown;
}

/** Options of `installShutdownSignals`. */
export interface ShutdownSignalOptions {
  log?: (line: string) => void;
  /** Exits the process; default `process.exit`. */
  exit?: (code: number) => void;
  proc?: SignalProcess;
}

const SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM'];

// docs/api-behaviour.md: 130 means interrupted (Ctrl-C); SIGTERM is the ordinary way to stop a service.
const exitCodeOf = (signal: NodeJS.Signals): number => (signal === 'SIGINT' ? 130 : 0);

/**
 * On the first SIGINT or SIGTERM, calls `server.close()` (drain, stop workers, close the engine) and exits;
 * on a second one, exits without waiting. Returns a function that removes the handlers.
 */
export function installShutdownSignals(
  server: { close(): Promise<void> },
  options: ShutdownSignalOptions = {},
): () => void {
  const proc = options.proc ?? process;
  const exit = options.exit ?? ((code: number) => process.exit(code));
  const log = options.log ?? (() => undefined);
  let shuttingDown = false;

  const handlers = new Map<NodeJS.Signals, () => void>();
  const uninstall = (): void => {
    for (const [signal, handler] of handlers) proc.removeListener(signal, handler);
  };
  const onSignal = (signal: NodeJS.Signals): void => {
    if (shuttingDown) {
      log(`received ${signal} again, exiting now`);
      exit(exitCodeOf(signal));
      return;
    }
    shuttingDown = true;
    log(`received ${signal}, shutting down`);
    // `once` consumed this listener; put it back so a second Ctrl-C can still cut the drain short.
    proc.once(signal, handlers.get(signal) as () => void);
    server.close().then(
      () => {
        uninstall();
        exit(exitCodeOf(signal));
      },
      (error: unknown) => {
        log(`shutdown failed: ${error instanceof Error ? error.message : String(error)}`);
        uninstall();
        exit(1);
      },
    );
  };
  for (const signal of SIGNALS) {
    const handler = (): void => onSignal(signal);
    handlers.set(signal, handler);
    proc.once(signal, handler);
  }
  return uninstall;
}
