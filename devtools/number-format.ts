// One number formatter for the whole devtools, built on first use: `Number.toLocaleString()` builds
// a new one on every call, and the panel formats counts on every render.
let counts: Intl.NumberFormat | undefined

/** `count` in the page's locale, with its grouping (`12,345`). */
export function formatCount(count: number): string {
  return (counts ??= new Intl.NumberFormat()).format(count)
}
