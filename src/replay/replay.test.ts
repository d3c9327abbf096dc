import { fakeFetch, recording, responseOf } from '../models/testing/fixtures'
import { describeReplay } from './testing/session'

// The recorded provider bytes, answered by a fake fetch.
describeReplay(
  'in Node',
  (...fixtures) => fakeFetch(...fixtures.map((file) => () => responseOf(recording(file)))).fetch,
)
