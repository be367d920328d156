-- The core's start forecast per pending job (issue 14: "when will it start").
ALTER TABLE "job" ADD COLUMN "estimatedStartAt" TIMESTAMPTZ(3),
ADD COLUMN "estimatedStartWhy" TEXT,
ADD COLUMN "estimatedStartAfter" INTEGER[] DEFAULT ARRAY[]::INTEGER[],
ADD COLUMN "estimatedAt" TIMESTAMPTZ(3);
