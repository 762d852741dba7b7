import jsqrModule from 'jsqr';

type JsQr = typeof import('jsqr').default;
// jsqr is a webpack UMD bundle: Node's ESM loader hands over module.exports, whose `default` is the function.
const jsQR: JsQr =
  typeof jsqrModule === 'function' ? (jsqrModule as JsQr) : (jsqrModule as unknown as { default: JsQr }).default;

/** Where each half-block glyph puts ink: [top half, bottom half]. */
const GLYPH_INK: Record<string, [boolean, boolean]> = {
  '█': [true, true],
  '▀': [true, false],
  '▄': [false, true],
  ' ': [false, false],
};

const ANSI = /\u001b\[[0-9;]*[A-Za-z]/g;

/**
 * Finds the QR block inside terminal output (other lines, such as the link printed above it, are skipped):
 * the longest run of equal-width lines made only of half-block glyphs and spaces.
 */
export function extractQrLines(output: string): string[] {
  const lines = output.replace(ANSI, '').split(/\r?\n/);
  let best: string[] = [];
  let run: string[] = [];
  for (const line of lines) {
    const isQrLine = line.length >= 10 && /^[█▀▄ ]+$/u.test(line) && /[█▀▄]/u.test(line);
    if (isQrLine && (run.length === 0 || run[0]!.length === line.length)) run.push(line);
    else run = isQrLine ? [line] : [];
    if (run.length > best.length) best = [...run];
  }
  if (best.length === 0) throw new Error('no QR block found in the output');
  return best;
}

/**
 * The QR as a matrix of modules (true = dark module). `inkIsLight` says how the terminal shows the glyphs:
 * true for light text on a dark background, the case qrcode-terminal draws for.
 */
export function terminalQrModules(output: string, inkIsLight = true): boolean[][] {
  const rows: boolean[][] = [];
  for (const line of extractQrLines(output)) {
    const top: boolean[] = [];
    const bottom: boolean[] = [];
    for (const char of line) {
      const [inkTop, inkBottom] = GLYPH_INK[char]!;
      top.push(inkTop !== inkIsLight);
      bottom.push(inkBottom !== inkIsLight);
    }
    rows.push(top, bottom);
  }
  return trimDarkEdges(rows);
}

// The border lines are half a glyph high: their outer half is bare terminal background, which reads as a
// dark stripe around the quiet zone. Dropping all-dark edge rows and columns leaves the symbol and its margin.
function trimDarkEdges(rows: boolean[][]): boolean[][] {
  const allDark = (cells: boolean[]) => cells.every(Boolean);
  while (rows.length > 0 && allDark(rows[0]!)) rows.shift();
  while (rows.length > 0 && allDark(rows[rows.length - 1]!)) rows.pop();
  const column = (index: number) => rows.map((row) => row[index]!);
  while (rows[0] && rows[0].length > 0 && allDark(column(0))) for (const row of rows) row.shift();
  while (rows[0] && rows[0].length > 0 && allDark(column(rows[0].length - 1))) for (const row of rows) row.pop();
  return rows;
}

/** Rasterises a module matrix to RGBA pixels with a 4-module white quiet zone. */
export function rasterise(modules: boolean[][], scale = 6): { data: Uint8ClampedArray; width: number; height: number } {
  const margin = 4;
  const width = ((modules[0]?.length ?? 0) + 2 * margin) * scale;
  const height = (modules.length + 2 * margin) * scale;
  const data = new Uint8ClampedArray(width * height * 4).fill(255);
  modules.forEach((row, y) =>
    row.forEach((dark, x) => {
      if (!dark) return;
      for (let dy = 0; dy < scale; dy++) {
        for (let dx = 0; dx < scale; dx++) {
          const offset = (((y + margin) * scale + dy) * width + (x + margin) * scale + dx) * 4;
          data.fill(0, offset, offset + 3);
        }
      }
    }),
  );
  return { data, width, height };
}

/** Decodes terminal QR output back to its text with jsQR, or throws when it does not decode. */
export function decodeTerminalQr(output: string, inkIsLight = true): string {
  const { data, width, height } = rasterise(terminalQrModules(output, inkIsLight));
  const code = jsQR(data, width, height, { inversionAttempts: 'dontInvert' });
  if (!code) throw new Error('the terminal QR did not decode');
  return code.data;
}

/** Decodes RGBA pixels (e.g. a QR drawn on a canvas in the browser) with jsQR, or returns null. */
export const decodeRgba = (data: Uint8ClampedArray, width: number, height: number): string | null =>
  jsQR(data, width, height)?.data ?? null;
