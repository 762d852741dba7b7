import type { Command } from 'commander';
import type { SvcClient } from '../client/client.js';
import { ProfileStore, resolveConfig, type ResolvedConfig } from '../client/config.js';
import type { PartnerClient } from '../client/partner-client.js';
import { CliError, EXIT, usageError } from './errors.js';
import type { PromptQuestion, ResolvedIo } from './io.js';
import { Output } from './output.js';

/** Options every command accepts (defined on the root program). */
export interface GlobalOptions {
  json?: boolean;
  profile?: string;
  baseUrl?: string;
  token?: string;
  data?: string;
  /** A PostgreSQL URL: the local engine's database instead of the data directory. */
  database?: string;
  /** A workspace of the local engine, instead of a token. */
  workspace?: number;
  /** A jq expression the JSON result goes through (implies --json). */
  jq?: string;
  color?: boolean;
}

/**
 * State of one `runCli` call, shared by the commands: parsed global options, resolved configuration, the
 * output module and the client. Everything is created on first use so `--help` touches nothing.
 */
export class CliContext {
  exitCode = 0;
  private outputCache: Output | undefined;
  private storeCache: ProfileStore | undefined;
  private configCache: ResolvedConfig | undefined;
  private readonly clients: SvcClient[] = [];
  private readonly extraSecrets: string[] = [];
  private readonly partnerClients: PartnerClient[] = [];

  /** The root command, set once the tree is built; global options are read from it after parsing. */
  program: Command | undefined;

  /**
   * Limits for every client this invocation opens. Shell completion sets them: an answer within a second or
   * none, and no background work started by a Tab press.
   */
  clientLimits: { timeoutMs?: number; workers?: boolean } = {};

  constructor(
    readonly io: ResolvedIo,
    private readonly argv: string[],
  ) {}

  get globals(): GlobalOptions {
    return this.program?.opts<GlobalOptions>() ?? {};
  }

  get output(): Output {
    if (this.outputCache === undefined) {
      const noColorEnv = this.io.env['NO_COLOR'];
      const jsonAsked = this.globals.json ?? this.argv.includes('--json');
      this.outputCache = new Output({
        // Parse errors happen before options are known; the raw argv still says whether JSON was asked for.
        // --jq implies --json, as in gh.
        json: jsonAsked || this.globals.jq !== undefined || this.argv.some((arg) => arg === '--jq' || arg.startsWith('--jq=')),
        jsonErrors: jsonAsked,
        color: this.globals.color !== false && !this.argv.includes('--no-color') && !(noColorEnv !== undefined && noColorEnv !== ''),
        stdout: this.io.stdout,
        stderr: this.io.stderr,
        stdoutIsTTY: this.io.stdoutIsTTY,
        stderrIsTTY: this.io.stderrIsTTY,
      });
    }
    return this.outputCache;
  }

  get profiles(): ProfileStore {
    this.storeCache ??= new ProfileStore(this.io.env);
    return this.storeCache;
  }

  /**
   * The effective configuration. A profile named explicitly must exist, except for `svc login`, which is
   * about to create it (`newProfile`).
   */
  config(options: { newProfile?: boolean } = {}): ResolvedConfig {
    const g = this.globals;
    this.configCache ??= resolveConfig(
      { profile: g.profile, baseUrl: g.baseUrl, token: g.token, data: g.data, database: g.database },
      this.io.env,
      this.profiles,
    );
    const resolved = this.configCache;
    if (options.newProfile !== true && resolved.profileExplicit && !resolved.profileExists) {
      throw usageError(
        `profile "${resolved.profileName}" does not exist`,
        `run \`svc profile list\` to see profiles, or \`svc login --profile ${resolved.profileName}\` to create it`,
      );
    }
    return resolved;
  }

  /**
   * The client for this invocation, local or remote as configured; closed when the command ends.
   * `remote` bypasses configuration (for `svc login`, which checks values before saving them).
   */
  async client(options: { workspaceId?: number; remote?: { baseUrl: string; token: string } } = {}): Promise<SvcClient> {
    let client: SvcClient;
    if (options.remote !== undefined) {
      this.extraSecrets.push(options.remote.token);
      client = await this.io.createClient({ ...options.remote, dataDir: '', ...this.clientLimits });
    } else {
      const config = this.config();
      const workspaceId = options.workspaceId ?? this.globals.workspace;
      if (config.baseUrl !== undefined && config.token === undefined) {
        throw new CliError('unauthorized', `no API token for ${config.baseUrl}`, 'pass --token, set SVC_TOKEN, or run `svc login`', EXIT.auth);
      }
      if (workspaceId !== undefined && config.baseUrl !== undefined) {
        this.output.warn('--workspace applies to the local engine; a remote instance acts on the workspace of the token');
      }
      client = await this.io.createClient({
        baseUrl: config.baseUrl,
        token: config.token,
        dataDir: config.dataDir,
        ...(config.databaseUrl === undefined ? {} : { databaseUrl: config.databaseUrl }),
        workspaceId,
        ...this.clientLimits,
      });
    }
    this.clients.push(client);
    return client;
  }

  /**
   * The Partner API client: the local engine of the data directory, or SVC_PARTNER_BASE_URL (or the profile's
   * partner_base_url). `override` bypasses configuration, for `svc login --partner`. Closed when the command ends.
   */
  async partnerClient(override?: { baseUrl?: string | undefined; partnerId: string; partnerSecret: string }): Promise<PartnerClient> {
    // `svc login --partner --profile NEW` checks the credentials before NEW exists.
    const config = this.config({ newProfile: override !== undefined });
    const partnerId = override?.partnerId ?? config.partnerId;
    const partnerSecret = override?.partnerSecret ?? config.partnerSecret;
    if (partnerId === undefined || partnerSecret === undefined) {
      throw new CliError(
        'unauthorized',
        'no Partner ID and Secret configured',
        'run `svc login --partner`, or set SVC_PARTNER_ID and SVC_PARTNER_SECRET',
        EXIT.auth,
      );
    }
    this.extraSecrets.push(partnerSecret);
    const client = await this.io.createPartnerClient({
      baseUrl: override === undefined ? config.partnerBaseUrl : override.baseUrl,
      partnerId,
      partnerSecret,
      dataDir: config.dataDir,
      ...(config.databaseUrl === undefined ? {} : { databaseUrl: config.databaseUrl }),
      ...this.clientLimits,
    });
    this.partnerClients.push(client);
    return client;
  }

  /** Where requests go, for error hints; undefined before configuration is known. */
  target(): string | undefined {
    return this.clients[0]?.target ?? this.partnerClients[0]?.target ?? this.configCache?.baseUrl;
  }

  /** Values that must never appear in output unless asked for. */
  secrets(): Array<string | undefined> {
    const c = this.configCache;
    return [
      this.globals.token,
      this.io.env['SVC_TOKEN'],
      this.io.env['SVC_PARTNER_SECRET'],
      c?.token,
      c?.partnerSecret,
      ...this.extraSecrets,
    ];
  }

  get canPrompt(): boolean {
    return this.io.stdinIsTTY && this.io.stdoutIsTTY;
  }

  /** Asks for a missing required value on a terminal; elsewhere it is a usage error. */
  async ask(question: PromptQuestion, missing: string): Promise<string> {
    if (!this.canPrompt) throw usageError(missing);
    const answer = (await this.io.prompt(question)).trim();
    if (answer === '') throw usageError(missing);
    return answer;
  }

  /**
   * Destructive commands ask first on a terminal; elsewhere they need `--yes` (as in gh), so a script never
   * deletes by accident and never hangs on a prompt nobody sees.
   */
  async confirm(action: string, yes: boolean | undefined): Promise<void> {
    if (yes === true) return;
    if (!this.canPrompt) throw usageError(`${action} needs confirmation`, 'rerun with --yes to confirm (no terminal to ask on)');
    const answer = await this.io.prompt({ kind: 'confirm', message: `${action}?` });
    if (answer !== 'yes') throw new CliError('cancelled', 'cancelled; nothing was changed', undefined, EXIT.failure);
  }

  async close(): Promise<void> {
    const clients = [...this.clients.splice(0), ...this.partnerClients.splice(0)];
    await Promise.allSettled(clients.map((client) => client.close()));
  }
}
