import { describe, expect, it } from 'vitest';
import { generateLinkCode, qrLinkUrl } from '../../src/partner/pairing.js';
import { renderTerminalQr } from '../../src/cli/terminal-qr.js';
import { decodeTerminalQr, terminalQrModules } from '../support/terminal-qr-decode.js';

const links = [
  qrLinkUrl('http://127.0.0.1:8080', generateLinkCode(), true),
  qrLinkUrl('http://127.0.0.1:8080', generateLinkCode()),
  qrLinkUrl('https://svc.example.com/tenant-a', generateLinkCode(), true),
  'http://127.0.0.1:8080/connect/AbC123dEf456GhI789jKl012MnO345pQ?display_mode=embedding',
];

describe('renderTerminalQr', () => {
  it.each(links)('renderTerminalQr: %s decodes back to the same link', (link) => {
    expect(decodeTerminalQr(renderTerminalQr(link))).toBe(link);
  });

  it('renderTerminalQr: the light-background variant decodes with dark ink', () => {
    const link = links[0]!;
    expect(decodeTerminalQr(renderTerminalQr(link, { lightBackground: true }), false)).toBe(link);
  });

  it('renderTerminalQr: decodes when surrounded by other output and colour codes', () => {
    const link = links[2]!;
    const printed = `QR link: \u001b[36m${link}\u001b[0m\n\n${renderTerminalQr(link)}\nExpires at 2026-01-16T12:00:00.000Z\n`;
    expect(decodeTerminalQr(printed)).toBe(link);
  });

  it('renderTerminalQr: two modules a line, so the block is about half as tall as wide', () => {
    const output = renderTerminalQr(links[0]!);
    const lines = output.split('\n');
    const modules = terminalQrModules(output);
    expect(modules.length).toBe(modules[0]!.length);
    expect(lines.length).toBeLessThanOrEqual(Math.ceil(lines[0]!.length / 2) + 2);
  });
});
