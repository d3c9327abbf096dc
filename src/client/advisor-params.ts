/** The param that turns off the automatic ToolCallingAdvisor (`AdvisorParams.TOOL_CALLING_AUTO_REGISTER`). */
export const TOOL_CALLING_AUTO_REGISTER = 'advisor-chain.tool-calling.auto-register'

/** Well-known advisor params (`.advisorParams(...)`), read by the ChatClient and the built-in advisors. */
export const AdvisorParams = {
  /** `false` turns off the automatic ToolCallingAdvisor: tool calls then reach the caller (user-controlled mode). */
  TOOL_CALLING_AUTO_REGISTER,

  toolCallingAdvisorAutoRegister(enabled: boolean): Record<string, unknown> {
    return { [TOOL_CALLING_AUTO_REGISTER]: enabled }
  },
} as const
