/**
 * The blob: links a trace holds in place of a page's Blobs (images and files), and the way back: a
 * fork made in the same page sends the Blob itself. One link per Blob, alive as long as the page
 * (never revoked, so the devtools can show it; the object URL keeps the Blob alive anyway); in
 * another page, or after a reload, a link resolves to nothing.
 */
const links = new Map<Blob, string>()

/** The page's link to `blob` ('' where there are no object URLs). */
export function attachmentLink(blob: Blob): string {
  let link = links.get(blob)
  if (!link && typeof URL.createObjectURL === 'function') links.set(blob, (link = URL.createObjectURL(blob)))
  return link ?? ''
}

const inline = new Map<string, string>()

/**
 * The page's link to the bytes of a data URL too large to keep in a trace, so a fork in this page
 * can send them again ('' for a URL that is not a data URL, or where there are no object URLs).
 */
export function dataUrlLink(dataUrl: string): string {
  let link = inline.get(dataUrl)
  if (link === undefined) {
    const blob = dataUrlBlob(dataUrl)
    inline.set(dataUrl, (link = blob ? attachmentLink(blob) : ''))
  }
  return link
}

function dataUrlBlob(url: string): Blob | undefined {
  const match = /^data:([^,]*?)(;base64)?,/i.exec(url)
  if (!match || typeof Blob === 'undefined') return undefined
  const body = url.slice(match[0].length)
  try {
    const bytes = match[2] ? Uint8Array.from(atob(body), (char) => char.charCodeAt(0)) : decodeURIComponent(body)
    return new Blob([bytes], { type: match[1]!.split(';')[0]! })
  } catch {
    return undefined
  }
}

/** The Blob a link of this page stands for. */
export function linkedAttachment(link: string): Blob | undefined {
  for (const [blob, linked] of links) if (linked === link) return blob
}
