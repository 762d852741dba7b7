import type { Command } from 'commander';

/**
 * One or two examples for every command's `--help`, as gh prints them. Kept beside each other so they read as
 * one set; a test checks that every command has one and that each names its own command.
 */
export const HELP_EXAMPLES: Record<string, string[]> = {
  send: ['svc send --phone +14155550123 --text "Hi"', 'echo "Hi from a script" | svc send --chat 7 --text - --no-wait --json'],
  'messages get': ['svc messages get msg_... --json'],
  'chats list': ['svc chats list --page 2'],
  'chats get': ['svc chats get 7'],
  'chats messages': ['svc chats messages 7 --json'],
  'chats assign': ['svc chats assign 7 --to alice@example.com'],
  'chats unassign': ['svc chats unassign 7'],
  'files upload': ['svc files upload ./menu.pdf --json'],
  'files list': ['svc files list'],
  'files get': ['svc files get file_...'],
  'files delete': ['svc files delete file_... --yes'],
  'accounts list': ['svc accounts list --json'],
  workspace: ['svc workspace'],
  'templates list': ['svc templates list'],
  'templates create': ['svc templates create --name menu --file-uid file_...'],
  'sim connect': ['svc sim connect --phone +15550001'],
  'sim receive': ['svc sim receive --from +4915112345 --to +15550001 --text "Hi"'],
  'sim react': ['svc sim react msg_... --emoji 👍'],
  'sim disconnect': ['svc sim disconnect --phone +15550001'],
  'sim suspend': ['svc sim suspend --phone +15550001'],
  'sim resume': ['svc sim resume --phone +15550001'],
  'sim scan': ['svc sim scan http://127.0.0.1:8080/connect/... --phone +15550001'],
  'sim unreachable': ['svc sim unreachable --phone +4915112345'],
  'webhooks create': ['svc webhooks create --event message:new --url https://example.com/hooks'],
  'webhooks list': ['svc webhooks list --json'],
  'webhooks get': ['svc webhooks get 3 --show-secret'],
  'webhooks update': ['svc webhooks update 3 --disable'],
  'webhooks delete': ['svc webhooks delete 3 --yes'],
  'webhooks deliveries': ['svc webhooks deliveries 3'],
  'webhooks redeliver': ['svc webhooks redeliver 3 17'],
  'webhooks test': ['svc webhooks test 3'],
  trigger: ['svc trigger message:received:new', 'svc trigger chat:assigned --json'],
  'partner trigger': ['svc partner trigger messenger_account:connected'],
  'webhooks listen': ['svc webhooks listen --forward-to 3000/hooks', 'svc webhooks listen --events message:new --forward-to http://localhost:8000/webhooks'],
  serve: ['svc serve --port 8080 --data ./data', 'svc serve --port 0 --data ./data --dev'],
  dev: ['svc dev --forward-to 3000/hooks', 'svc dev --port 8081 --data ./dev-data --events message:received:new --forward-to http://localhost:3000/webhooks'],
  'admin workspace create': ['svc admin workspace create --data ./data --name "Acme" --quota 1000 --json'],
  'admin workspace update': ['svc admin workspace update 2 --data ./data --quota 5000', 'svc admin workspace update 2 --data ./data --storage-mb 2048'],
  'admin partner create': ['svc admin partner create --data ./data --name Acme --json'],
  'admin migrate': ['svc admin migrate --database postgres://svc@db.internal:5432/svc', 'svc admin migrate --data ./data'],
  'admin copy': ['svc admin copy --data ./data --database postgres://svc@db.internal:5432/svc'],
  'admin instance': ['svc admin instance --data ./data', 'svc admin instance --data ./data --strict', 'svc admin instance --database postgres://svc@db.internal:5432/svc --webhook-retry-delays 5,30 --json'],
  'partner workspace create': ['svc partner workspace create --name "Acme Dental" --seats 5 --json'],
  'partner workspace get': ['svc partner workspace get 2'],
  'partner workspace update': ['svc partner workspace update 2 --seats 10'],
  'partner users create': ['svc partner users create 2 --count 3 --json'],
  'partner users list': ['svc partner users list 2'],
  'partner qr': ['svc partner qr 2 5 --wait'],
  'partner account disconnect': ['svc partner account disconnect 2 5 --yes'],
  'partner token get': ['svc partner token get 2 --json'],
  'partner token rotate': ['svc partner token rotate 2 --yes'],
  'partner webhooks create': ['svc partner webhooks create --event messenger_account:connected --url https://example.com/partner-hooks'],
  'partner webhooks list': ['svc partner webhooks list'],
  'partner webhooks get': ['svc partner webhooks get 1 --show-secret'],
  'partner webhooks update': ['svc partner webhooks update 1 --enable'],
  'partner webhooks delete': ['svc partner webhooks delete 1 --yes'],
  'partner webhooks deliveries': ['svc partner webhooks deliveries 1'],
  'partner webhooks redeliver': ['svc partner webhooks redeliver 1 4'],
  'partner webhooks listen': ['svc partner webhooks listen --forward-to 3000/partner-hooks'],
  'partner webhooks test': ['svc partner webhooks test 1'],
  login: ['svc login --base-url http://127.0.0.1:8080/api --token T', 'svc login --partner --partner-base-url http://127.0.0.1:8080/partner'],
  logout: ['svc logout', 'svc logout --profile staging'],
  status: ['svc status', 'svc status --json'],
  'profile list': ['svc profile list'],
  'profile use': ['svc profile use staging'],
  'profile delete': ['svc profile delete staging --yes'],
  'profile show': ['svc profile show staging'],
  completion: ['eval "$(svc completion bash)"', 'svc completion fish > ~/.config/fish/completions/svc.fish'],
};

/** The path of a command below the root, e.g. "partner token rotate". */
export const commandPath = (command: Command): string => {
  const names: string[] = [];
  for (let c: Command | null = command; c?.parent; c = c.parent) names.unshift(c.name());
  return names.join(' ');
};

/** Adds the examples to the help of every command in the tree that has some. */
export function addHelpExamples(command: Command): void {
  for (const sub of command.commands) {
    const examples = HELP_EXAMPLES[commandPath(sub)];
    if (examples !== undefined) sub.addHelpText('after', `\nExamples:\n${examples.map((e) => `  $ ${e}`).join('\n')}\n`);
    addHelpExamples(sub);
  }
}
