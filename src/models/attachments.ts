import { byteSizeOf, isBlob, sourceOf, type AttachmentPart, type Message } from '../core'
import { attachmentType, base64OfBytes, isMalformedDataUrl, sniffedType, TEXT_FILE_TYPES } from './attachment-data'
import { ChatModelError, type ErrorContext } from './errors'

/** What a provider accepts as attachments; checked before any request is sent. */
export interface AttachmentRules {
  /** Image media types it takes; empty when the model reads no images. */
  imageTypes: readonly string[]
  maxImageBytes: number
  /** File media types it takes as documents (plain text is always sent as text). */
  documentTypes: readonly string[]
  maxDocumentBytes: number
  /** Whether a file may be a URL rather than bytes. */
  documentUrls: boolean
  /** Said when a model reads no images, e.g. which model to pick instead. */
  noImagesHint?: string
}

const MB = 1024 * 1024
/** The image types every vision API here takes. */
const COMMON_IMAGES = ['image/png', 'image/jpeg', 'image/webp', 'image/gif']

/** OpenAI (Chat Completions and Responses): PNG, JPEG, WebP, non-animated GIF up to 20 MB; PDFs up to 32 MB. */
export const OPENAI_ATTACHMENTS: AttachmentRules = {
  imageTypes: COMMON_IMAGES,
  maxImageBytes: 20 * MB,
  documentTypes: ['application/pdf'],
  maxDocumentBytes: 32 * MB,
  documentUrls: false,
}

/** A model that reads text only: plain-text files become text, anything else is refused before it is sent. */
export function textOnly(noImagesHint: string): AttachmentRules {
  return { imageTypes: [], maxImageBytes: 0, documentTypes: [], maxDocumentBytes: 0, documentUrls: false, noImagesHint }
}

/** Malformed input (a broken data: URL, an empty file), as opposed to input of a kind the model does not take. */
const INVALID = 'invalid_attachment'

type Refuse = (problem: string, code?: string) => never

/**
 * The messages ready for a JSON request: unchanged (at no cost) when no user message has parts;
 * else every attachment checked against `rules` and Blobs read into `data:` URLs. A bad one throws
 * a ChatModelError naming the model and the part (code `unsupported_attachment`, or
 * `invalid_attachment` for malformed input) before anything is sent.
 */
export function withAttachments(
  messages: readonly Message[],
  rules: AttachmentRules,
  context: ErrorContext,
): readonly Message[] | Promise<readonly Message[]> {
  if (!messages.some((message) => message.role === 'user' && message.parts)) return messages
  return Promise.all(
    messages.map(async (message, m) =>
      message.role !== 'user' || !message.parts
        ? message
        : {
            ...message,
            parts: await Promise.all(
              message.parts.map(async (part, p) =>
                part.type === 'text'
                  ? part
                  : readied(part, rules, (problem, code = 'unsupported_attachment') => {
                      const label = `${part.type}${part.name ? ` '${part.name}'` : ''} (message ${m + 1}, part ${p + 1})`
                      throw new ChatModelError(
                        `${context.label} model '${context.model}' cannot take the ${label}: ${problem}`,
                        {
                          provider: context.provider,
                          code,
                          retryable: false,
                        },
                      )
                    }),
              ),
            ),
          },
    ),
  )
}

/** The attachment checked, and a Blob read into a `data:` URL with its media type (sniffed when the Blob has none). */
async function readied(part: AttachmentPart, rules: AttachmentRules, refuse: Refuse): Promise<AttachmentPart> {
  const source = sourceOf(part)
  const image = part.type === 'image'
  if (image && !rules.imageTypes[0]) refuse(`it reads no images.${rules.noImagesHint ? ` ${rules.noImagesHint}` : ''}`)
  const blob = isBlob(source)
  const link = !blob && !source.startsWith('data:')
  let bytes: Uint8Array | undefined
  const read = async () =>
    (bytes ??= new Uint8Array(
      await (source as Blob)
        .arrayBuffer()
        .catch((error: unknown) => refuse(`it cannot be read: ${String(error)}`, INVALID)),
    ))
  // Only a Blob without a type is read before the checks: its first bytes say what it is.
  const type = attachmentType(part) ?? (blob ? sniffedType(await read()) : undefined)
  const text = !image && TEXT_FILE_TYPES.includes(type as string)
  // A link must be https:; a data: URL well formed (base64, or percent-encoded plain text).
  if (!blob && (link ? !/^https:\/\//i.test(source) : isMalformedDataUrl(source, text)))
    refuse(
      `'${source.slice(0, 40)}' is not an https: URL, a data: URL (data:<type>;base64,<data>) or a Blob.`,
      link ? undefined : INVALID,
    )
  if (!type) {
    if (!link) refuse('its media type is unknown. Give the part a mediaType, e.g. image/png.')
  } else if (image) {
    if (!rules.imageTypes.includes(type))
      refuse(`${type} is not an image type it takes (${names(rules.imageTypes)}). Convert the image first.`)
  } else if (!text && !rules.documentTypes.includes(type)) {
    refuse(`${type} is not a file type it takes (${names([...rules.documentTypes, 'text/plain'])}).`)
  } else if (link && (text || !rules.documentUrls)) {
    refuse('it takes this file as a Blob or a data: URL, not as a link.')
  }
  const size = byteSizeOf(part)
  if (size === 0) refuse('it is empty (0 bytes).', INVALID)
  const max = image ? rules.maxImageBytes : rules.maxDocumentBytes
  if (!text && size! > max)
    refuse(
      `${megabytes(size!)} is over its limit of ${megabytes(max)} per ${part.type}. Make the ${part.type} smaller first.`,
    )
  if (!blob) return part
  const url = `data:${type};base64,${base64OfBytes(await read())}`
  return image ? { ...part, image: url, mediaType: type! } : { ...part, data: url, mediaType: type! }
}

function names(types: readonly string[]): string {
  return types.map((type) => type.split('/')[1]!.toUpperCase()).join(', ')
}

function megabytes(bytes: number): string {
  return `${(bytes / MB).toFixed(1).replace(/\.0$/, '')} MB`
}
