export * from './anthropic'
export * from './errors'
export * from './openai'
export * from './openai-responses'
export * from './scripted'
export * from './stable-id'
export {
  COMMON_IMAGES,
  checkAttachments,
  inlineAttachments,
  isTextFile,
  textFileText,
  type AttachmentRules,
} from './attachments'
