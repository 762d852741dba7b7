import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { buildConnector, type Dispatcher } from 'undici';
import { OriginPools } from './origin-pools.js';
import { isPublicAddress, stripDecorations } from './ip-address.js';
import type { UrlPolicyMode } from './url-policy.js';

/** One address a host name resolved to. */
export interface ResolvedAddress {
  address: string;
  family: number;
}

/** DNS as a dependency, so tests can play a rebinding attacker. */
export type ResolveHost = (hostname: string) => Promise<ResolvedAddress[]>;

/** The system resolver (getaddrinfo, so /etc/hosts counts), every address in resolver order. */
export const systemResolveHost: ResolveHost = (hostname) => lookup(hostname, { all: true, verbatim: true });

/** Raised by the connector when a webhook host is, or resolves to, a non-public address. */
export class AddressNotAllowedError extends Error {
  readonly code = 'ERR_WEBHOOK_ADDRESS_NOT_PUBLIC';
  constructor(message: string) {
    super(message);
    this.name = 'AddressNotAllowedError';
  }
}

export interface GuardedDispatcherOptions {
  resolveHost?: ResolveHost;
  /** Which resolved addresses may be dialled; tests widen it to reach a receiver on 127.0.0.1. */
  isAllowedAddress?: (ip: string) => boolean;
  /** Passed to undici's connector (TLS options such as `ca`, connect `timeout`). */
  connect?: buildConnector.BuildOptions;
}

/**
 * Keep-alive pools per origin (origin-pools.ts) whose every new connection resolves the host once, refuses it unless ALL its addresses
 * are allowed, and then dials the checked address itself. Checking and dialling the same lookup result is
 * what defeats DNS rebinding: there is no second lookup an attacker could answer differently. TLS still
 * verifies the certificate against the original host name (sent as SNI).
 */
export function createGuardedDispatcher(options: GuardedDispatcherOptions = {}): OriginPools {
  const resolveHost = options.resolveHost ?? systemResolveHost;
  const isAllowed = options.isAllowedAddress ?? isPublicAddress;
  const base = buildConnector(options.connect ?? {});

  const connect: buildConnector.connector = (opts, callback) => {
    const hostname = stripDecorations(opts.hostname);
    if (isIP(hostname) !== 0) {
      if (!isAllowed(hostname)) {
        callback(new AddressNotAllowedError(`${hostname} is not a public address`), null);
        return;
      }
      base(opts, callback);
      return;
    }
    resolveHost(hostname).then(
      (addresses) => {
        const refused = addresses.find((a) => !isAllowed(a.address));
        const first = addresses[0];
        if (first === undefined) {
          callback(new AddressNotAllowedError(`${hostname} did not resolve to any address`), null);
        } else if (refused !== undefined) {
          // The address itself stays out of the message: it would map the operator's internal network.
          callback(new AddressNotAllowedError(`${hostname} resolves to a private address`), null);
        } else {
          base({ ...opts, hostname: first.address, servername: opts.servername ?? hostname }, callback);
        }
      },
      (error: unknown) => {
        const reason = error instanceof Error ? error.message : String(error);
        callback(Object.assign(new Error(`could not resolve ${hostname}: ${reason}`), { cause: error }), null);
      },
    );
  };
  return new OriginPools({ connect });
}

/**
 * The dispatcher webhook deliveries use: guarded in strict mode, plain pools in dev mode (where private
 * addresses are allowed on purpose). undici never follows redirects by itself.
 */
export function createWebhookDispatcher(mode: UrlPolicyMode, options: GuardedDispatcherOptions = {}): Dispatcher {
  if (mode === 'strict') return createGuardedDispatcher(options);
  // A resolver given in dev mode (tests) is used as in strict mode, with every address allowed.
  if (options.resolveHost !== undefined) return createGuardedDispatcher({ ...options, isAllowedAddress: () => true });
  return new OriginPools(options.connect === undefined ? {} : { connect: options.connect });
}
