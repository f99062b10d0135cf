/** Markdown building blocks of the generated reference: tables whose cells never break the row. */

/** A cell's text with `|` escaped and line breaks folded, so a value cannot split its table row. */
export function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\s*\n\s*/g, ' ');
}

export function code(text: string): string {
  return text.includes('`') ? `\`\` ${text} \`\`` : `\`${text}\``;
}

export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]) => `| ${cells.map(cell).join(' | ')} |`;
  return [line(header), `|${header.map(() => '---').join('|')}|`, ...rows.map(line)].join('\n');
}

/** `1,000` for 1000: figures read the same as in the hand-written pages. */
export function figure(value: number): string {
  return value.toLocaleString('en-US');
}
