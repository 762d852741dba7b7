import { existsSync } from 'node:fs';
import { chromium, type Browser, type Frame, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderQrSvg } from '../../src/partner/connect-page.js';
import { PAIRING_WINDOW_MS, generateLinkCode, pairingPayload } from '../../src/partner/pairing.js';
import { decodeRgba } from '../partner/terminal-qr-decode.js';
import { startFakeConnectServer, startParentSite, type FakeConnectServer } from './fake-connect-server.js';

const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const PHONE = '+15550001234';

interface PostedMessage {
  origin: string;
  data: { type: string; data?: string; phone?: string; reason?: string };
}

interface Element2d {
  getAttribute(name: string): string | null;
}
/**
 * The few browser globals the page functions below touch. The project's lib has no DOM on purpose (so server
 * code cannot use `window` by mistake); the functions run in Chromium and read these through `globalThis`.
 */
interface BrowserGlobals {
  document: {
    querySelector(selector: string): Element2d | null;
    getElementById(id: string): Element2d | null;
    createElement(tag: 'canvas'): {
      width: number;
      height: number;
      getContext(kind: '2d'): {
        drawImage(image: unknown, x: number, y: number, width: number, height: number): void;
        getImageData(x: number, y: number, width: number, height: number): { data: Uint8ClampedArray };
      };
    };
    documentElement: { scrollHeight: number };
    body: Element2d;
  };
  Image: new () => { src: string; decode(): Promise<void> };
  XMLSerializer: new () => { serializeToString(node: unknown): string };
  getComputedStyle(element: unknown): { backgroundColor: string; display: string };
  innerHeight: number;
  svcMessages: PostedMessage[];
  notReloaded?: boolean;
}

/** The QR the page shows, drawn on a canvas in the browser and decoded with jsQR in Node. */
async function decodeShownQr(frame: Page | Frame): Promise<string | null> {
  const size = 360;
  const pixels = await frame.evaluate(async (side) => {
    const { document, Image, XMLSerializer } = globalThis as unknown as BrowserGlobals;
    const svg = document.querySelector('#svc-qr svg');
    if (!svg) return null;
    const image = new Image();
    image.src = `data:image/svg+xml;base64,${btoa(new XMLSerializer().serializeToString(svg))}`;
    await image.decode();
    const canvas = document.createElement('canvas');
    canvas.width = canvas.height = side;
    const context = canvas.getContext('2d');
    context.drawImage(image, 0, 0, side, side);
    // Base64 rather than a number array: the protocol would serialise half a million numbers one by one.
    const bytes = context.getImageData(0, 0, side, side).data;
    let binary = '';
    for (let offset = 0; offset < bytes.length; offset += 0x8000) {
      binary += String.fromCharCode(...bytes.subarray(offset, offset + 0x8000));
    }
    return btoa(binary);
  }, size);
  return pixels === null ? null : decodeRgba(new Uint8ClampedArray(Buffer.from(pixels, 'base64')), size, size);
}

/** A fresh QR event for a link, as the real server pushes when the pairing window turns. */
async function nextQrEvent(code: string) {
  const payload = pairingPayload(code, Date.now() + PAIRING_WINDOW_MS);
  return { type: 'qr' as const, svg: await renderQrSvg(payload), payload, rotates_at: 0 };
}

const messagesOf = (page: Page) => page.evaluate(() => (globalThis as unknown as BrowserGlobals).svcMessages);

async function waitForMessage(page: Page, predicate: (message: PostedMessage) => boolean): Promise<PostedMessage> {
  for (let waited = 0; waited < 10_000; waited += 50) {
    const found = (await messagesOf(page)).find(predicate);
    if (found) return found;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`no matching postMessage; got ${JSON.stringify(await messagesOf(page))}`);
}

if (!existsSync(CHROMIUM)) {
  describe('connect page in headless Chromium', () => {
    it.skip(`skipped: ${CHROMIUM} is missing (apt-get install chromium; .ci/run installs it)`, () => {});
  });
} else {
  describe('connect page in headless Chromium', () => {
    let browser: Browser;
    let server: FakeConnectServer;
    let parent: { origin: string; close(): Promise<void> };
    const consoleErrors: string[] = [];

    beforeAll(async () => {
      [server, parent] = await Promise.all([startFakeConnectServer(), startParentSite()]);
      browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
    });
    afterAll(async () => {
      await browser?.close();
      await Promise.all([server?.close(), parent?.close()]);
    });

    async function newPage(): Promise<Page> {
      const page = await browser.newPage();
      // A CSP that blocked the inline script or style would show up here as "Refused to ...".
      page.on('console', (message) => {
        if (message.type() === 'error') consoleErrors.push(`${message.text()} (${message.location().url})`);
      });
      page.on('pageerror', (error) => consoleErrors.push(error.message));
      return page;
    }

    it('connect page: standalone shows the QR, follows rotation and shows the phone without a reload', async () => {
      const code = generateLinkCode();
      const page = await newPage();
      await page.goto(`${server.origin}/connect/${code}`);
      await page.locator('#svc-qr svg').waitFor({ state: 'visible' });
      const initialPayload = await page.locator('#svc-qr').getAttribute('data-payload');
      expect(await decodeShownQr(page)).toBe(initialPayload);
      await page.evaluate(() => ((globalThis as unknown as BrowserGlobals).notReloaded = true));

      await server.waitForStream(code);
      const rotated = await nextQrEvent(code);
      server.push(code, rotated);
      await page.waitForFunction(
        (payload) =>
          (globalThis as unknown as BrowserGlobals).document.getElementById('svc-qr')?.getAttribute('data-payload') ===
          payload,
        rotated.payload,
      );
      expect(await decodeShownQr(page)).toBe(rotated.payload);

      server.push(code, { type: 'connected', phone: PHONE });
      await page.locator('.state-connected').waitFor({ state: 'visible' });
      expect(await page.locator('#svc-phone').textContent()).toBe(PHONE);
      expect(await page.locator('#svc-qr').isVisible()).toBe(false);
      expect(await page.evaluate(() => (globalThis as unknown as BrowserGlobals).notReloaded)).toBe(true);
      // The page closes its stream once connected instead of reconnecting forever.
      await expect.poll(() => server.streamCount(code)).toBe(0);
      expect(consoleErrors).toEqual([]);
      await page.close();
    });

    it('connect page: an embedded page is transparent, fits its iframe and posts qr and connected to the parent', async () => {
      const code = generateLinkCode();
      const src = `${server.origin}/connect/${code}?display_mode=embedding`;
      const page = await newPage();
      await page.goto(`${parent.origin}/partner-app?src=${encodeURIComponent(src)}`);
      const first = await waitForMessage(page, (message) => message.data.type === 'svc:qr');
      expect(first.origin).toBe(server.origin);

      const frame = page.frame({ url: /display_mode=embedding/ });
      if (!frame) throw new Error('iframe not found');
      await frame.locator('#svc-qr svg').waitFor({ state: 'visible' });
      expect(await decodeShownQr(frame)).toBe(first.data.data);
      const layout = await frame.evaluate(() => {
        const { document, getComputedStyle, innerHeight } = globalThis as unknown as BrowserGlobals;
        return {
          background: getComputedStyle(document.body).backgroundColor,
          fits: document.documentElement.scrollHeight <= innerHeight,
          headingShown: getComputedStyle(document.querySelector('h1')).display !== 'none',
        };
      });
      expect(layout).toEqual({ background: 'rgba(0, 0, 0, 0)', fits: true, headingShown: false });

      await server.waitForStream(code);
      const rotated = await nextQrEvent(code);
      server.push(code, rotated);
      await waitForMessage(page, (message) => message.data.type === 'svc:qr' && message.data.data === rotated.payload);

      server.push(code, { type: 'connected', phone: PHONE });
      const connected = await waitForMessage(page, (message) => message.data.type === 'svc:connected');
      expect(connected).toEqual({ origin: server.origin, data: { type: 'svc:connected', phone: PHONE } });
      await frame.locator('.state-connected').waitFor({ state: 'visible' });
      expect(await frame.locator('#svc-phone').textContent()).toBe(PHONE);
      expect((await messagesOf(page)).map((message) => message.data.type)).toEqual(['svc:qr', 'svc:qr', 'svc:connected']);
      expect(consoleErrors).toEqual([]);
      await page.close();
    });

    it('connect page: an expired link switches state and tells the parent', async () => {
      const code = generateLinkCode();
      const src = `${server.origin}/connect/${code}?display_mode=embedding`;
      const page = await newPage();
      await page.goto(`${parent.origin}/partner-app?src=${encodeURIComponent(src)}`);
      await waitForMessage(page, (message) => message.data.type === 'svc:qr');
      await server.waitForStream(code);

      server.push(code, { type: 'expired' });
      const expired = await waitForMessage(page, (message) => message.data.type === 'svc:expired');
      expect(expired.data).toEqual({ type: 'svc:expired', reason: 'expired' });
      const frame = page.frame({ url: /display_mode=embedding/ })!;
      await frame.locator('.state-expired').waitFor({ state: 'visible' });
      expect(await frame.locator('#svc-qr').isVisible()).toBe(false);
      expect(consoleErrors).toEqual([]);
      await page.close();
    });
  });
}
