export { whatIfInput } from "@tranche/contracts";
export { previewAllocations } from "@tranche/domain";
