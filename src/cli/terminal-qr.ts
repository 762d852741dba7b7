import { createRequire } from 'node:module';

// qrcode-terminal ships no types and no ESM entry; a local interface avoids a global ambient declaration.
interface QrcodeTerminal {
  generate(input: string, options: { small?: boolean }, callback: (output: string) => void): void;
}
// Loaded on first use: every `svc` invocation imports this module, few of them draw a QR code.
const require = createRequire(import.meta.url);
let qrcodeTerminal: QrcodeTerminal | undefined;

/** Options of a terminal QR. */
export interface TerminalQrOptions {
  /**
   * qrcode-terminal draws light modules with the glyph colour, which suits dark terminals. On a light
   * background that is a negative image, which some phone scanners refuse, so the glyphs are swapped.
   */
  lightBackground?: boolean;
}

const SWAP: Record<string, string> = { '█': ' ', ' ': '█', '▀': '▄', '▄': '▀' };

/** The text as a QR code of half-block characters (two modules a line), for `svc partner qr`. */
export function renderTerminalQr(text: string, options: TerminalQrOptions = {}): string {
  let output = '';
  // The callback runs synchronously; without one the library would print to the console itself.
  qrcodeTerminal ??= require('qrcode-terminal') as QrcodeTerminal;
  qrcodeTerminal.generate(text, { small: true }, (rendered) => {
    output = rendered;
  });
  if (output === '') throw new Error('qrcode-terminal produced no output');
  return options.lightBackground ? [...output].map((char) => SWAP[char] ?? char).join('') : output;
}
