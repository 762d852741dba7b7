#!/usr/bin/env node
// The installed `svc` binary: real process IO, signal handling and the exit code around runCli.

let cli;
try {
  cli = await import('../dist/bundle/main.js');
} catch (error) {
  process.stderr.write(`svc is not built (${error.message}); run \`npm run build\` first\n`);
  process.exit(1);
}

// Long-running commands (serve, waiting for delivery) subscribe to stop gracefully. With no subscriber, or
// on a second Ctrl-C, exit at once: 130 for SIGINT, 143 for SIGTERM (128 + signal number).
const handlers = new Set();
let signals = 0;
const onSignal = (signal) => {
  signals += 1;
  if (handlers.size === 0 || signals > 1) process.exit(signal === 'SIGINT' ? 130 : 143);
  for (const handler of [...handlers]) handler(signal);
};
process.on('SIGINT', () => onSignal('SIGINT'));
process.on('SIGTERM', () => onSignal('SIGTERM'));

// `svc chats list | head` closes the pipe early; that is not an error worth a stack trace.
process.stdout.on('error', (error) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw error;
});
// stderr carries notes and `svc serve`'s request log; a reader that went away must not take the server down.
process.stderr.on('error', (error) => {
  if (error.code !== 'EPIPE') throw error;
});

const io = cli.processIo({
  onInterrupt: (handler) => {
    handlers.add(handler);
    return () => handlers.delete(handler);
  },
});

const code = await cli.runCli(process.argv.slice(2), io);
process.exitCode = code;
// A Tab press must not wait for anything completion left open (a slow server's socket): leave once the
// candidates are written.
if (process.argv[2] === '__complete') process.stdout.write('', () => process.exit(code));
// Safety net: if a leaked handle would keep the process alive after the command finished, leave anyway.
setTimeout(() => process.exit(code), 2000).unref();
