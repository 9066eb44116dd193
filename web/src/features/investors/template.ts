/**
 * Splits a catalogue template into text and placeholder names: "Total: {total}." -> ["Total: ", {name: "total"}, "."].
 * Lets a page put elements (a left-to-right figure) where a text has a {placeholder}, which `t()` cannot do.
 */
export type TemplatePart = string | { name: string };

export function splitTemplate(template: string): TemplatePart[] {
  const parts: TemplatePart[] = [];
  const re = /\{(\w+)\}/g;
  let last = 0;
  for (let m = re.exec(template); m; m = re.exec(template)) {
    if (m.index > last) parts.push(template.slice(last, m.index));
    parts.push({ name: m[1] ?? '' });
    last = m.index + m[0].length;
  }
  if (last < template.length) parts.push(template.slice(last));
  return parts;
}
