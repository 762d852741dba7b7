import type { Browser, Frame, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PAIRING_WINDOW_MS } from '../../src/partner/pairing.js';
import { decodeRgba } from '../support/terminal-qr-decode.js';
import { CHROMIUM, chromiumInstalled, launchChromium } from '../support/chromium.js';
import { startParentSite, startRealConnectServer, type RealConnectServer } from '../support/connect-servers.js';

const PHONE = '+15550001234';
const PHONE_2 = '+15550001235';

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

const messagesOf = (page: Page) => page.evaluate(() => (globalThis as unknown as BrowserGlobals).svcMessages);

async function waitForMessage(page: Page, predicate: (message: PostedMessage) => boolean): Promise<PostedMessage> {
  for (let waited = 0; waited < 10_000; waited += 50) {
    const found = (await messagesOf(page)).find(predicate);
    if (found) return found;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`no matching postMessage; got ${JSON.stringify(await messagesOf(page))}`);
}

if (!chromiumInstalled()) {
  describe('connect page in headless Chromium', () => {
    it.skip(`skipped: ${CHROMIUM} is missing (apt-get install chromium; .ci/run installs it)`, () => {});
  });
} else {
  describe('connect page in headless Chromium', () => {
    let browser: Browser;
    let server: RealConnectServer;
    let parent: { origin: string; close(): Promise<void> };
    const consoleErrors: string[] = [];

    beforeAll(async () => {
      [server, parent] = await Promise.all([startRealConnectServer(), startParentSite()]);
      browser = await launchChromium();
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

    const shownPayload = (frame: Page | Frame) => frame.locator('#svc-qr').getAttribute('data-payload');

    it('connect page: standalone shows the QR, follows rotation and shows the phone after a scan, without a reload', async () => {
      const { link } = await server.newLink();
      const page = await newPage();
      await page.goto(link);
      await page.locator('#svc-qr svg').waitFor({ state: 'visible' });
      const initialPayload = await shownPayload(page);
      expect(await decodeShownQr(page)).toBe(initialPayload);
      await page.evaluate(() => ((globalThis as unknown as BrowserGlobals).notReloaded = true));

      // The server's feed re-reads the link every second; the next pairing window brings a new payload.
      server.clock.advance(PAIRING_WINDOW_MS);
      await expect.poll(() => shownPayload(page), { timeout: 10_000 }).not.toBe(initialPayload);
      expect(await decodeShownQr(page)).toBe(await shownPayload(page));

      await server.scan(link, PHONE);
      await page.locator('.state-connected').waitFor({ state: 'visible' });
      expect(await page.locator('#svc-phone').textContent()).toBe(PHONE);
      expect(await page.locator('#svc-qr').isVisible()).toBe(false);
      expect(await page.evaluate(() => (globalThis as unknown as BrowserGlobals).notReloaded)).toBe(true);
      expect((await server.engine.workspace(1).listAccounts()).items.map((a) => a.phone)).toContain(PHONE);
      expect(consoleErrors).toEqual([]);
      await page.close();
    });

    it('connect page: an embedded page is transparent, fits its iframe and posts qr and connected to the parent', async () => {
      const { link } = await server.newLink();
      const src = `${link}?display_mode=embedding`;
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

      server.clock.advance(PAIRING_WINDOW_MS);
      await waitForMessage(page, (message) => message.data.type === 'svc:qr' && message.data.data !== first.data.data);

      // The phone scans the code the page shows right now, as a real phone would.
      await server.engine.connect.scan({ payload: (await shownPayload(frame))!, phone: PHONE_2 });
      const connected = await waitForMessage(page, (message) => message.data.type === 'svc:connected');
      expect(connected).toEqual({ origin: server.origin, data: { type: 'svc:connected', phone: PHONE_2 } });
      await frame.locator('.state-connected').waitFor({ state: 'visible' });
      expect(await frame.locator('#svc-phone').textContent()).toBe(PHONE_2);
      expect((await messagesOf(page)).map((message) => message.data.type)).toEqual(['svc:qr', 'svc:qr', 'svc:connected']);
      expect(consoleErrors).toEqual([]);
      await page.close();
    });

    it('connect page: an expired link switches state and tells the parent', async () => {
      const { link } = await server.newLink(1);
      const src = `${link}?display_mode=embedding`;
      const page = await newPage();
      await page.goto(`${parent.origin}/partner-app?src=${encodeURIComponent(src)}`);
      await waitForMessage(page, (message) => message.data.type === 'svc:qr');

      server.clock.advance(3_600_000);
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
