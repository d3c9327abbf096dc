'use client'
// advisor-chain/react: React bindings for a ChatClient.
export { withStreamPart } from './chat-parts'
export {
  bubbleOf,
  toViews,
  type ChatMessageView,
  type ChatPartView,
  type ToolCallPartView,
  type ToolCallState,
  type ToolCallView,
} from './chat-view'
export { useChat, type ChatStatus, type ToolApprovalAnswer, type UseChat, type UseChatOptions } from './use-chat'
