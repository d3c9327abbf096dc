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

/** The Blob a link of this page stands for. */
export function linkedAttachment(link: string): Blob | undefined {
  for (const [blob, linked] of links) if (linked === link) return blob
}
