/** The fault kit of issue #12: hostile servers on 127.0.0.1 and a runner that crawls each beside a healthy host. */
export { FAULT_CASES, faultCase } from './cases.ts';
export { runFaultCase, faultProblems, baseOptions, SIZES, type FaultCase, type FaultFixture, type FaultGroup, type FaultResult, type FaultScale, type FaultSize } from './run.ts';
export { reasonOf, readLog, rowReason, saysOneOf } from './log.ts';
export { startRawHttp, startTlsGarbage, startConnectProxy, startCanary, answer, drip, type FaultServer } from './raw.ts';
