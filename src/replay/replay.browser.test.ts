import { describeReplay } from './testing/session'

// The recorded provider bytes, served over real HTTP by the test server's /__replay/ route.
describeReplay('in Chromium', (...fixtures) => {
  let next = 0
  return (_url, init) => fetch(`/__replay/${fixtures[next++] ?? 'none'}`, init)
})
