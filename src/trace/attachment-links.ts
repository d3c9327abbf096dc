/**
 * The blob: links a trace holds in place of a page's Blobs (images and files), and the way back: a
 * fork made in the same page sends the Blob itself. One link per Blob, alive as long as the page
 * (never revoked, so the devtools can show it); in another page, or after a reload, a link
 * resolves to nothing.
 */
const linkOf = new WeakMap<Blob, string>()
const blobOf = new Map<string, Blob>()

/** The page's link to `blob` ('' where there are no object URLs). */
export function attachmentLink(blob: Blob): string {
  let link = linkOf.get(blob)
  if (!link && typeof URL.createObjectURL === 'function') {
    linkOf.set(blob, (link = URL.createObjectURL(blob)))
    // The object URL keeps the Blob alive anyway; this only finds it again.
    blobOf.set(link, blob)
  }
  return link ?? ''
}

/** The Blob a link of this page stands for. */
export function linkedAttachment(link: string): Blob | undefined {
  return blobOf.get(link)
}
