import { ClusterCards } from "../../components/cluster-cards";
import { MyActiveJobs } from "../../components/my-active-jobs";

export default function OverviewPage() {
  return (
    <>
      <div className="page-head">
        <div>
          <h1>Overview</h1>
          <p className="lede">
            GPU time is shared by budgets, not priorities: the most under-served budget goes first, and every waiting job says
            why.
          </p>
        </div>
        <a className="btn primary" href="/submit">
          Submit a job
        </a>
      </div>
      <ClusterCards />
      <div style={{ height: "1.25rem" }} />
      <MyActiveJobs />
    </>
  );
}
