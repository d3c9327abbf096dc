export {
  MessageChatMemoryAdvisor,
  MessageChatMemoryAdvisorBuilder,
  type MessageChatMemoryAdvisorOptions,
} from './memory-advisor'
export { ROUNDS_METADATA } from './turn-rounds'
export * from './session-memory-advisor'
