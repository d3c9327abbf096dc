'use client'
// advisor-chain/react: React bindings for a ChatClient.
export {
  bubbleOf,
  messagesOf,
  toViews,
  withStreamPart,
  type ChatFinish,
  type ChatMessageView,
  type ChatPartView,
  type ChatStatus,
  type ToolApprovalAnswer,
  type ToolApprovalMark,
  type ToolCallPartView,
  type ToolCallState,
  type ToolCallView,
  type ToolPartOf,
  type ToolParts,
} from '../client'
export { useChat, type UseChat, type UseChatOptions } from './use-chat'
export { useObject, type UseObject, type UseObjectOptions } from './use-object'
