/** Well-known advisor params (`.advisorParams(...)`), read by the ChatClient and the built-in advisors. */
export const AdvisorParams = {
  /** `false` turns off the automatic ToolCallingAdvisor: tool calls then reach the caller (user-controlled mode). */
  TOOL_CALLING_AUTO_REGISTER: 'advisor-chain.tool-calling.auto-register',

  toolCallingAdvisorAutoRegister(enabled: boolean): Record<string, unknown> {
    return { [AdvisorParams.TOOL_CALLING_AUTO_REGISTER]: enabled }
  },
} as const
