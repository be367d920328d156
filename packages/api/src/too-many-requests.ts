// The class lives in the domain, which refuses some writes for going too fast (API tokens made an hour).
export { TooManyRequests } from "@tranche/domain";
