// What the suite's report and the fleet's (load/fleet/report.ts) share: number and text formats, a
// table cell, the SVG frame, the page's CSS, and the columns of the terminal tables.

export const intFmt = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
export const SVG_W = 1060;

export function escapeHtml(s: string): string {
  return s.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;').replaceAll("'", '&#39;');
}

export function fmtMs(v: number): string {
  if (!Number.isFinite(v)) return '—';
  if (v < 1) return v.toFixed(2);
  if (v < 10) return v.toFixed(1);
  return intFmt.format(v);
}

export function fmtStatuses(statuses: Readonly<Record<string, number>>): string {
  const entries = Object.entries(statuses).sort(([a], [b]) => a.localeCompare(b));
  return entries.length === 0 ? '—' : entries.map(([code, n]) => `${code}: ${intFmt.format(n)}`).join(', ');
}

/** Milliseconds as seconds, to two decimals: "1.46 s". */
export function fmtSeconds(ms: number): string {
  return `${(ms / 1000).toFixed(2)} s`;
}

export function fmtDuration(seconds: number): string {
  const s = Math.round(seconds);
  return s < 60 ? `${s} s` : `${Math.floor(s / 60)} min ${s % 60} s`;
}

export function svgOpen(height: number, title: string): string {
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${SVG_W}" height="${height}" viewBox="0 0 ${SVG_W} ${height}" ` +
    `font-family="system-ui, sans-serif" font-size="12" fill="#111827" role="img" aria-label="${escapeHtml(title)}">`
  );
}

export function td(text: string, cls = ''): string {
  return `<td${cls === '' ? '' : ` class="${cls}"`}>${escapeHtml(text)}</td>`;
}

export const CSS = `
body { font: 14px/1.45 system-ui, sans-serif; background: #f8fafc; color: #111827; max-width: 1100px; margin: 24px auto; padding: 0 16px; }
h1 { font-size: 24px; margin: 0 0 6px; } h2 { font-size: 18px; margin: 28px 0 8px; }
.meta { margin: 2px 0; color: #374151; } .muted { color: #6b7280; }
code { font-size: 13px; background: #e5e7eb; padding: 1px 4px; border-radius: 3px; }
table { border-collapse: collapse; font-size: 13px; background: #fff; }
th, td { padding: 4px 8px; border-bottom: 1px solid #e5e7eb; text-align: left; vertical-align: top; }
th { background: #f1f5f9; font-weight: 600; vertical-align: bottom; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.verdict { font-weight: 700; text-align: center; }
.pass { background: #dcfce7; color: #166534; } .miss { background: #fee2e2; color: #991b1b; } .na { background: #f3f4f6; color: #6b7280; }
.info { background: #e0f2fe; color: #075985; } td.limited { color: #92400e; font-weight: 600; }
.bad { color: #b91c1c; font-weight: 600; } td.skip { color: #6b7280; font-style: italic; }
.summary { font-weight: 600; margin: 4px 0 8px; }
.scroll { overflow-x: auto; } table.runs { font-size: 12px; } table.runs :is(th, td) { padding: 4px 5px; }
table.runs td:first-child { max-width: 200px; } table.runs td:nth-child(2) { white-space: nowrap; }
table.runs td:nth-child(3) { max-width: 140px; } tr.sub td { border-top: 0; color: #374151; }
svg { display: block; background: #fff; border: 1px solid #e5e7eb; }
details { margin: 4px 0; } summary { cursor: pointer; }
pre { font-size: 12px; background: #fff; border: 1px solid #e5e7eb; padding: 8px; overflow-x: auto; }
`;

// Rows shorter than the header let their last cell run on unpadded (a skipped run's reason).
export function padColumns(rows: readonly (readonly string[])[], rightAligned: ReadonlySet<number>): string {
  const widths: number[] = [];
  for (const row of rows) {
    const full = row.length >= (rows[0]?.length ?? 0);
    row.forEach((cell, i) => {
      if (full || i < row.length - 1) widths[i] = Math.max(widths[i] ?? 0, cell.length);
    });
  }
  const line = (row: readonly string[]): string =>
    row
      .map((cell, i) => {
        if (row.length < widths.length && i === row.length - 1) return cell;
        return rightAligned.has(i) ? cell.padStart(widths[i] ?? 0) : cell.padEnd(widths[i] ?? 0);
      })
      .join('  ')
      .trimEnd();
  const [header, ...body] = rows;
  if (header === undefined) return '';
  return [line(header), widths.map((w) => '─'.repeat(w)).join('  '), ...body.map(line)].join('\n');
}
