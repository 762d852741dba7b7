/** Debian's Chromium, headless, as the browser tests start it; without these flags it reaches for the network. */
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export const chromiumInstalled = (): boolean => existsSync(CHROMIUM);

export const launchChromium = (): Promise<Browser> => chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
