import { chmodSync, existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import type Conf from 'conf';
import { withAreaPath } from './base-url.js';

/** What one saved profile holds. Field names match the wire style so `profile show --json` reads naturally. */
export interface Profile {
  base_url?: string;
  token?: string;
  data_dir?: string;
  partner_base_url?: string;
  partner_id?: string;
  partner_secret?: string;
}

interface StoreShape {
  current?: string;
  profiles: Record<string, Profile>;
}

export const DEFAULT_PROFILE = 'default';

const require = createRequire(import.meta.url);

/**
 * Saved profiles, kept with conf in the user's config directory (`SVC_CONFIG_DIR` overrides it).
 * The file holds tokens, so it is written with mode 0600. Every command reads the profiles but few write
 * them, so reads parse the file directly and conf (slow to load) is loaded only for a write.
 */
export class ProfileStore {
  private confCache: Conf<StoreShape> | undefined;
  readonly path: string;

  constructor(private readonly env: Record<string, string | undefined>) {
    const cwd = env['SVC_CONFIG_DIR'];
    // The same place conf (through env-paths) keeps the file: <config dir>/svc/config.json.
    const configHome = env['XDG_CONFIG_HOME'] || join(env['HOME'] || homedir(), '.config');
    this.path = join(cwd === undefined || cwd === '' ? join(configHome, 'svc') : cwd, 'config.json');
  }

  get current(): string | undefined {
    return this.read().current;
  }

  list(): Record<string, Profile> {
    return { ...(this.read().profiles ?? {}) };
  }

  get(name: string): Profile | undefined {
    return this.list()[name];
  }

  /** Merges `values` into profile `name`, creating it. */
  save(name: string, values: Profile): void {
    const profiles = this.list();
    profiles[name] = { ...profiles[name], ...values };
    this.conf().set('profiles', profiles);
    this.tighten();
  }

  /** Forgets profile `name`; when it was the current one, no profile is current any more. */
  delete(name: string): void {
    const profiles = this.list();
    delete profiles[name];
    const conf = this.conf();
    conf.set('profiles', profiles);
    if (this.current === name) conf.delete('current');
    this.tighten();
  }

  use(name: string): void {
    this.conf().set('current', name);
    this.tighten();
  }

  private read(): Partial<StoreShape> {
    try {
      return JSON.parse(readFileSync(this.path, 'utf8')) as Partial<StoreShape>;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
      throw error;
    }
  }

  private conf(): Conf<StoreShape> {
    if (this.confCache === undefined) {
      const { default: ConfClass } = require('conf') as { default: typeof Conf };
      const cwd = this.env['SVC_CONFIG_DIR'];
      this.confCache = new ConfClass<StoreShape>({
        projectName: 'svc',
        projectSuffix: '',
        configFileMode: 0o600,
        // Profile names may contain dots; they are keys, not paths.
        accessPropertiesByDotNotation: false,
        ...(cwd === undefined || cwd === '' ? {} : { cwd }),
      });
    }
    return this.confCache;
  }

  // conf applies the mode only when it creates the file, and creates its folder with the umask's mode; a file
  // or folder made by hand or by an older version may be wider. Profiles hold tokens: owner only, always.
  private tighten(): void {
    if (existsSync(this.path)) chmodSync(this.path, 0o600);
    if (existsSync(dirname(this.path))) chmodSync(dirname(this.path), 0o700);
  }
}

/** Global flags that take part in configuration. */
export interface ConfigFlags {
  profile?: string;
  baseUrl?: string;
  token?: string;
  data?: string;
  database?: string;
}

/** Where a resolved value came from, for `svc profile show` and error messages. */
export type ConfigSource = 'flag' | 'env' | 'profile' | 'default';

/** The effective configuration of one invocation. */
export interface ResolvedConfig {
  profileName: string;
  /** True when the profile was named by --profile or SVC_PROFILE, so a missing one is an error. */
  profileExplicit: boolean;
  profileExists: boolean;
  baseUrl: string | undefined;
  token: string | undefined;
  dataDir: string;
  /** A `postgres://` URL (--database, SVC_DATABASE_URL): the local engine runs on PostgreSQL instead of `dataDir`. */
  databaseUrl: string | undefined;
  partnerBaseUrl: string | undefined;
  partnerId: string | undefined;
  partnerSecret: string | undefined;
  sources: { baseUrl: ConfigSource; token: ConfigSource; dataDir: ConfigSource; databaseUrl: ConfigSource };
  /**
   * The flag or variable (`--data`, `SVC_HOME`, `--database`, `SVC_DATABASE_URL`) that made a profile with a
   * saved server step aside for the local engine; undefined when nothing did. `svc status` and `svc login` warn.
   */
  profileSetAsideBy: string | undefined;
}

/** The data directory used when nothing names one: `~/.local/share/svc`. */
export const defaultDataDir = (env: Record<string, string | undefined>): string =>
  join(env['HOME'] || homedir(), '.local', 'share', 'svc');

const present = (value: string | undefined): value is string => value !== undefined && value !== '';

function pick(
  flag: string | undefined,
  envValue: string | undefined,
  profileValue: string | undefined,
): { value: string | undefined; source: ConfigSource } {
  if (present(flag)) return { value: flag, source: 'flag' };
  if (present(envValue)) return { value: envValue, source: 'env' };
  if (present(profileValue)) return { value: profileValue, source: 'profile' };
  return { value: undefined, source: 'default' };
}

/** Resolves every setting by precedence: flag > environment > profile > default. */
export function resolveConfig(
  flags: ConfigFlags,
  env: Record<string, string | undefined>,
  store: Pick<ProfileStore, 'current' | 'get'>,
): ResolvedConfig {
  const named = pick(flags.profile, env['SVC_PROFILE'], undefined);
  const profileName = named.value ?? store.current ?? DEFAULT_PROFILE;
  const profile = store.get(profileName);
  const p: Profile = profile ?? {};
  const dataDir = pick(flags.data, env['SVC_HOME'], p.data_dir);
  const database = pick(flags.database, env['SVC_DATABASE_URL'], undefined);
  // A flag or variable beats a profile: `--data DIR` (or SVC_HOME) after `svc login` means the local engine of
  // DIR, so the server, token and partner address saved in the profile step aside. Likewise a `--data` flag
  // beats SVC_BASE_URL, as every flag beats the environment; only `--base-url` wins over `--data`.
  const localAsked = dataDir.source === 'flag' || dataDir.source === 'env' || database.value !== undefined;
  const remote: Profile = localAsked ? {} : p;
  const localFlag = dataDir.source === 'flag' || database.source === 'flag';
  const baseUrl = pick(flags.baseUrl, localFlag ? undefined : env['SVC_BASE_URL'], remote.base_url);
  // The saved token belongs to the saved server, as gh keeps a token per host: it goes with the profile's base
  // URL however that URL was given (`--base-url` typed again after `svc login`, even with SVC_HOME set), and
  // never to another server.
  const profileToken = baseUrl.value !== undefined && p.base_url !== undefined && sameApiBase(baseUrl.value, p.base_url) ? p.token : undefined;
  const token = pick(flags.token, env['SVC_TOKEN'], profileToken);
  return {
    profileName,
    profileExplicit: named.value !== undefined,
    profileExists: profile !== undefined,
    baseUrl: baseUrl.value,
    token: token.value,
    dataDir: dataDir.value ?? defaultDataDir(env),
    databaseUrl: database.value,
    partnerBaseUrl: pick(undefined, env['SVC_PARTNER_BASE_URL'], remote.partner_base_url).value,
    partnerId: pick(undefined, env['SVC_PARTNER_ID'], p.partner_id).value,
    partnerSecret: pick(undefined, env['SVC_PARTNER_SECRET'], p.partner_secret).value,
    sources: { baseUrl: baseUrl.source, token: token.source, dataDir: dataDir.source, databaseUrl: database.source },
    profileSetAsideBy:
      localAsked && baseUrl.value === undefined && (p.base_url !== undefined || p.partner_base_url !== undefined)
        ? localSelector(dataDir.source, database.source)
        : undefined,
  };
}

/** Which setting chose the local engine, as the user would type it. */
function localSelector(dataDir: ConfigSource, database: ConfigSource): string {
  if (database === 'flag') return '--database';
  if (dataDir === 'flag') return '--data';
  return database === 'env' ? 'SVC_DATABASE_URL' : 'SVC_HOME';
}

/** Two base URLs of the same Public API: the server root stands for its `/api`, a trailing slash is no difference. */
export function sameApiBase(a: string, b: string): boolean {
  const normal = (url: string): string => {
    const based = withAreaPath(url, '/api');
    try {
      const parsed = new URL(based);
      return `${parsed.origin}${parsed.pathname.replace(/\/+$/, '')}`;
    } catch {
      return based;
    }
  };
  return normal(a) === normal(b);
}
