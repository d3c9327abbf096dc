export * from './chat'
export * from './chat-state'
export { withStreamPart } from './chat-parts'
export {
  bubbleOf,
  messagesOf,
  toViews,
  type ChatMessageView,
  type ChatPartView,
  type ToolApprovalMark,
  type ToolCallPartView,
  type ToolCallState,
  type ToolCallView,
  type ToolPartOf,
  type ToolParts,
} from './chat-view'
export { memoryOf } from './client-wiring'
