import QRCode from 'qrcode';

/**
 * The text as an inline SVG QR code, drawn on the server so the page loads no script library or image.
 * Level M survives a glare spot on a monitor; the 2-module margin plus the page's white frame makes the quiet zone.
 */
export async function renderQrSvg(text: string): Promise<string> {
  const svg = await QRCode.toString(text, {
    type: 'svg',
    errorCorrectionLevel: 'M',
    margin: 2,
    color: { dark: '#000000ff', light: '#ffffffff' },
  });
  return svg.replace('<svg ', '<svg role="img" aria-label="QR code to scan with your phone" ').trim();
}
