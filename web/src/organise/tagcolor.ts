// Colours of tags: a new tag gets one of a small palette picked from its
// name, and a tag's text is dark or light to read on its colour.

const palette = ['#fde68a', '#bbf7d0', '#bfdbfe', '#fbcfe8', '#ddd6fe', '#fed7aa', '#99f6e4', '#e5e7eb'];

/** A palette colour for a new tag, the same for the same name. */
export function tagColor(name: string): string {
  let h = 0;
  for (let i = 0; i < name.length; i++) h = (h * 31 + name.charCodeAt(i)) >>> 0;
  return palette[h % palette.length];
}

/** Black or white, whichever reads better on a #RGB or #RRGGBB colour. */
export function textOn(color: string): string {
  let hex = color.replace('#', '');
  if (hex.length === 3) hex = hex.replace(/./g, (c) => c + c);
  if (!/^[0-9a-fA-F]{6}$/.test(hex)) return '#000';
  const n = parseInt(hex, 16);
  const lum = 0.299 * ((n >> 16) & 255) + 0.587 * ((n >> 8) & 255) + 0.114 * (n & 255);
  return lum > 140 ? '#000' : '#fff';
}
