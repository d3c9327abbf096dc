import {
  byteSizeOf,
  isBlob,
  mediaTypeOf,
  sourceOf,
  type AssistantPart,
  type AttachmentPart,
  type UserPart,
} from '../../core'
import type { Redactor } from '../../trace'
import { attachmentLink, dataUrlLink } from '../../trace/attachment-links'

/** Data URLs up to this length go into a trace as they are (thumbnails); larger ones are left out. */
export const TRACED_DATA_URL_LENGTH = 64 * 1024

/**
 * The parts of a message as a trace keeps them: text and tool calls masked, attachments without
 * their bytes — a link the devtools can show as a thumbnail (an https URL, a small data URL, a
 * blob: link of the page, which a fork in the page turns back into the Blob) and the media type,
 * name and size.
 */
export function tracedParts<P extends UserPart | AssistantPart>(parts: readonly P[], redactor: Redactor): P[] {
  return parts.map((part): P => {
    switch (part.type) {
      case 'text':
      case 'reasoning':
        return { ...part, text: redactor.text(part.text) }
      case 'tool-call':
        return {
          ...part,
          name: redactor.text(part.name),
          arguments: redactor.arguments(part.arguments),
        }
      case 'image':
        return { ...described(part), type: 'image', image: linkOf(part, redactor, true) } as P
      default:
        return { ...described(part), type: 'file', data: linkOf(part, redactor, false) } as P
    }
  })
}

function described(part: AttachmentPart): { mediaType?: string; name?: string; size?: number } {
  const described: { mediaType?: string; name?: string; size?: number } = {}
  const mediaType = mediaTypeOf(part)
  const size = byteSizeOf(part)
  if (mediaType) described.mediaType = mediaType
  if (part.name) described.name = part.name
  if (size !== undefined) described.size = size
  return described
}

/**
 * An https URL masked, a Blob's link, an image's small data URL, a link of the page to a larger
 * data URL's bytes (as for a Blob, a fork in this page sends them again); '' for bytes left out.
 */
function linkOf(part: AttachmentPart, redactor: Redactor, image: boolean): string {
  const source = sourceOf(part)
  if (isBlob(source)) return attachmentLink(source)
  if (/^https?:\/\//i.test(source)) return redactor.text(source)
  if (image && source.startsWith('data:image/') && source.length <= TRACED_DATA_URL_LENGTH) return source
  return source.startsWith('data:') ? dataUrlLink(source) : ''
}
