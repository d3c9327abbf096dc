import type { Message } from '../core'
import type { AttachmentRules } from './attachments'
import type { ErrorContext } from './errors'

/**
 * The messages ready for a JSON request: unchanged (at no cost) when no user message has parts;
 * else checked and with Blobs read, by code loaded only then.
 */
export function withAttachments(
  messages: readonly Message[],
  rules: 'openai' | 'anthropic' | AttachmentRules,
  context: ErrorContext,
): readonly Message[] | Promise<readonly Message[]> {
  if (!messages.some((message) => message.role === 'user' && message.parts !== undefined)) return messages
  return import('./attachments').then((attachments) =>
    attachments.prepareAttachments(
      messages,
      rules === 'openai'
        ? attachments.OPENAI_ATTACHMENTS
        : rules === 'anthropic'
          ? attachments.ANTHROPIC_ATTACHMENTS
          : rules,
      context,
    ),
  )
}
