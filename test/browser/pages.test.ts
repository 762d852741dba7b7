/**
 * The pages a person sees, in headless Chromium: `GET /`, a connection link that does not work (404), one
 * that expired (410) and the live connection page all wear the same card, from the same inline stylesheet
 * (a CSP-blocked style would leave them bare serif text and log an error). Each is screenshotted to
 * test-results/screenshots/ (or $SVC_SCREENSHOT_DIR) for a person to look at.
 */
import { mkdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, chromiumInstalled, launchChromium } from '../support/chromium.js';
import { startRealConnectServer, type RealConnectServer } from '../support/connect-servers.js';

const SHOTS = resolve(process.env['SVC_SCREENSHOT_DIR'] ?? 'test-results/screenshots');

interface StyledElement {
  textContent: string | null;
}
/** The browser globals the functions below touch (the project's lib has no DOM on purpose). */
interface BrowserGlobals {
  document: { querySelector(selector: string): StyledElement | null; body: StyledElement };
  getComputedStyle(element: StyledElement): Record<string, string>;
}

/** The card's look: what makes the page the tidy card rather than bare text. */
const cardLook = (page: Page) =>
  page.evaluate(() => {
    const { document, getComputedStyle } = globalThis as unknown as BrowserGlobals;
    const main = document.querySelector('main');
    if (main === null) return null;
    const card = getComputedStyle(main);
    const body = getComputedStyle(document.body);
    return {
      pageBackground: body['backgroundColor'],
      font: body['fontFamily'],
      cardBackground: card['backgroundColor'],
      radius: card['borderTopLeftRadius'],
      shadowed: card['boxShadow'] !== 'none',
    };
  });

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

if (!chromiumInstalled()) {
  describe('pages in headless Chromium', () => {
    it.skip(`skipped: ${CHROMIUM} is missing (apt-get install chromium)`, () => {});
  });
} else {
  describe('pages in headless Chromium', () => {
    let browser: Browser;
    let server: RealConnectServer;
    let blankPngBytes = 0;
    const errors: string[] = [];

    beforeAll(async () => {
      mkdirSync(SHOTS, { recursive: true });
      [server, browser] = await Promise.all([startRealConnectServer({ metrics: true }), launchChromium()]);
      // The size of a screenshot of nothing, to tell a drawn page from an empty one.
      const blank = await browser.newPage();
      blankPngBytes = (await blank.screenshot()).length;
      await blank.close();
    });
    afterAll(async () => {
      await browser?.close();
      await server?.close();
    });

    /** Opens `url` as a browser does, checks its status, and screenshots it; returns the page. */
    async function open(url: string, status: number, shot: string): Promise<Page> {
      const page = await browser.newPage();
      page.on('console', (message) => {
        // The page's own status (404, 410) is logged as a failed load of its URL; that one is intended.
        const ownStatus = message.location().url === url && message.text().startsWith('Failed to load resource');
        if (message.type() === 'error' && !ownStatus) errors.push(`${shot}: ${message.text()}`);
      });
      page.on('pageerror', (error) => errors.push(`${shot}: ${error.message}`));
      const response = await page.goto(url);
      expect(response?.status(), url).toBe(status);
      const file = join(SHOTS, `${shot}.png`);
      await page.screenshot({ path: file, fullPage: true });
      const png = readFileSync(file);
      expect(png.subarray(0, 8).equals(PNG_SIGNATURE), file).toBe(true);
      expect(statSync(file).size, `${file} against a blank page's ${blankPngBytes} bytes`).toBeGreaterThan(2 * blankPngBytes);
      return page;
    }

    let connectLook: Awaited<ReturnType<typeof cardLook>>;

    it('the connection page is the card the others must match', async () => {
      const { link } = await server.newLink();
      const page = await open(link, 200, 'connect-waiting');
      await page.locator('#svc-qr svg').waitFor({ state: 'visible' });
      connectLook = await cardLook(page);
      expect(connectLook).toEqual({
        pageBackground: 'rgb(243, 245, 247)',
        font: expect.stringContaining('system-ui'),
        cardBackground: 'rgb(255, 255, 255)',
        radius: '16px',
        shadowed: true,
      });
      await page.close();
    });

    it('GET / in a browser: the same card, listing every address the JSON lists, metrics included', async () => {
      const page = await open(`${server.origin}/`, 200, 'index');
      expect(await cardLook(page)).toEqual(connectLook);
      const json = (await (await fetch(`${server.origin}/`)).json()) as { data: Record<string, unknown> };
      const listed = await page.locator('.links a').allTextContents();
      const addresses = Object.entries(json.data)
        .filter(([key]) => key !== 'service')
        .flatMap(([, value]) => (typeof value === 'string' ? [value] : Object.values(value as Record<string, string>)));
      expect(listed.sort()).toEqual(addresses.sort());
      expect(listed).toContain(`${server.origin}/metrics`);
      expect(await page.locator('.links li').count()).toBe(6);
      await page.close();
    });

    it('an unknown connection link: a 404 page with the same card, saying what to do', async () => {
      const page = await open(`${server.origin}/connect/abcdefghijklmnopqrstuvwxyz012345`, 404, 'connect-404');
      expect(await cardLook(page)).toEqual(connectLook);
      expect(await page.locator('h1').textContent()).toBe('This connection link does not work');
      expect(await page.locator('.big').isVisible()).toBe(true);
      expect(await page.locator('main').textContent()).toMatch(/ask whoever sent it\s+for a new one/);
      await page.close();
    });

    it('an expired connection link: a 410 page with the same card', async () => {
      const { link } = await server.newLink(1);
      server.clock.advance(2 * 3_600_000);
      const page = await open(link, 410, 'connect-410');
      expect(await cardLook(page)).toEqual(connectLook);
      expect(await page.locator('.state-expired').isVisible()).toBe(true);
      expect(await page.locator('#svc-qr').isVisible()).toBe(false);
      await page.close();
    });

    it('no page had its inline stylesheet refused, nor any other error', () => {
      expect(errors).toEqual([]);
    });
  });
}
