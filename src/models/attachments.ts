import {
  byteSizeOf,
  isBlob,
  sourceOf,
  type AttachmentPart,
  type Message,
  type UserMessage,
  type UserPart,
} from '../core'
import { attachmentType, base64OfBytes, TEXT_FILE_TYPES } from './attachment-data'
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

/** Anthropic Messages: JPEG, PNG, GIF, WebP up to 5 MB each; PDFs up to the 32 MB request limit. */
export const ANTHROPIC_ATTACHMENTS: AttachmentRules = {
  imageTypes: COMMON_IMAGES,
  maxImageBytes: 5 * MB,
  documentTypes: ['application/pdf'],
  maxDocumentBytes: 32 * MB,
  documentUrls: true,
}

/**
 * Throws a ChatModelError naming the model and the part when an attachment is of a type the
 * provider does not take or over its size limit, so nothing is sent.
 */
export function checkAttachments(messages: readonly Message[], rules: AttachmentRules, context: ErrorContext): void {
  messages.forEach((message, messageIndex) => {
    if (message.role !== 'user' || !message.parts) return
    message.parts.forEach((part, partIndex) => {
      if (part.type === 'text') return
      const problem = attachmentProblem(part, rules)
      if (!problem) return
      const label = `${part.type}${part.name ? ` '${part.name}'` : ''} (message ${messageIndex + 1}, part ${partIndex + 1})`
      throw new ChatModelError(`${context.label} model '${context.model}' cannot take the ${label}: ${problem}`, {
        provider: context.provider,
        code: 'unsupported_attachment',
        retryable: false,
      })
    })
  })
}

function attachmentProblem(part: AttachmentPart, rules: AttachmentRules): string | undefined {
  const type = attachmentType(part)
  const size = byteSizeOf(part)
  if (part.type === 'image') {
    if (rules.imageTypes.length === 0) return `it reads no images.${rules.noImagesHint ? ` ${rules.noImagesHint}` : ''}`
    if (type !== undefined && !rules.imageTypes.includes(type))
      return `${type} is not an image type it takes (${names(rules.imageTypes)}). Convert the image first.`
    if (size !== undefined && size > rules.maxImageBytes)
      return `${megabytes(size)} is over its limit of ${megabytes(rules.maxImageBytes)} per image. Make the image smaller first.`
    return undefined
  }
  if (type === undefined)
    return 'its media type is unknown. Give the part a mediaType (e.g. application/pdf or text/plain).'
  const isUrl = typeof part.data === 'string' && !part.data.startsWith('data:')
  if (TEXT_FILE_TYPES.includes(type))
    return isUrl ? 'a plain-text file is sent as its text, so it must be a Blob or a data: URL, not a link.' : undefined
  if (!rules.documentTypes.includes(type))
    return `${type} is not a file type it takes (${names([...rules.documentTypes, 'text/plain'])}).`
  if (!rules.documentUrls && isUrl) return 'it takes files as bytes, not URLs. Pass the file as a Blob or a data: URL.'
  if (size !== undefined && size > rules.maxDocumentBytes)
    return `${megabytes(size)} is over its limit of ${megabytes(rules.maxDocumentBytes)} per file.`
  return undefined
}

function names(types: readonly string[]): string {
  return types.map((type) => type.split('/')[1]!.toUpperCase()).join(', ')
}

function megabytes(bytes: number): string {
  return `${(bytes / MB).toFixed(1).replace(/\.0$/, '')} MB`
}

/**
 * The messages ready for a JSON request: unchanged (at no cost) when no user message has parts;
 * else the attachments checked against `rules` (throwing before anything is sent) and Blobs read
 * into `data:` URLs.
 */
export function withAttachments(
  messages: readonly Message[],
  rules: AttachmentRules,
  context: ErrorContext,
): readonly Message[] | Promise<readonly Message[]> {
  if (!messages.some((message) => message.role === 'user' && message.parts !== undefined)) return messages
  checkAttachments(messages, rules, context)
  return inlineAttachments(messages)
}

/**
 * The messages with every Blob attachment read into a `data:` URL (what a JSON request can carry).
 * The same array, synchronously, when there is none: a text-only prompt costs one scan.
 */
export function inlineAttachments(messages: readonly Message[]): readonly Message[] | Promise<readonly Message[]> {
  if (!messages.some(hasBlob)) return messages
  return Promise.all(
    messages.map((message) => (hasBlob(message) ? inlineMessage(message as UserMessage) : Promise.resolve(message))),
  )
}

function hasBlob(message: Message): boolean {
  return message.role === 'user' && !!message.parts?.some((part) => part.type !== 'text' && isBlob(sourceOf(part)))
}

async function inlineMessage(message: UserMessage): Promise<UserMessage> {
  const parts = await Promise.all(
    message.parts!.map(async (part): Promise<UserPart> => {
      if (part.type === 'text') return part
      const source = sourceOf(part)
      if (!isBlob(source)) return part
      const mediaType = attachmentType(part) ?? 'application/octet-stream'
      const url = await dataUrlOf(source, mediaType)
      return part.type === 'image' ? { ...part, image: url, mediaType } : { ...part, data: url, mediaType }
    }),
  )
  return { ...message, parts }
}

async function dataUrlOf(blob: Blob, mediaType: string): Promise<string> {
  return `data:${mediaType};base64,${base64OfBytes(new Uint8Array(await blob.arrayBuffer()))}`
}
