// The one place text meets the terminal. Names, labels and messages can come from a file (a model's
// general.name, its class labels, a tensor name inside a refusal, a config.json field); printed raw,
// `ESC ] 0 ; … BEL` retitles the user's terminal and `ESC [ 2 J` clears it. Every human-readable line
// the CLI prints goes through displayText; JSON output does not (JSON.stringify escapes C0 itself).

/** C0 controls (newline and tab included), DEL, and the C1 controls (U+0080..U+009F, CSI among them). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching the control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;
const SHORT: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/**
 * `text` with every control character written out as an escape (`\u001b`, `\n`), so it prints as
 * one inert line. Newlines are escaped too: a line break the CLI means is its own, between calls.
 */
export function displayText(text: string): string {
  return text.replace(CONTROL, (c) => SHORT[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Lines (each made inert) joined by the newlines the CLI itself writes, with a final one. */
export function displayLines(lines: readonly string[]): string {
  return lines.map((line) => `${displayText(line)}\n`).join('');
}

/** A `jepa: …` line on stderr: notices, progress reports, refusals. */
export function say(message: string): void {
  process.stderr.write(`jepa: ${displayText(message)}\n`);
}

/** Human-readable lines on stdout (tables, summaries); never JSON. */
export function printLines(...lines: string[]): void {
  process.stdout.write(displayLines(lines));
}
