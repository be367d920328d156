import { StartSessionForm } from "./start-session-form";

export const metadata = { title: "Start a session" };

export default function StartSessionPage() {
  return (
    <>
      <div className="page-head">
        <div>
          <h1>Start a session</h1>
          <p className="lede">
            An interactive session on GPUs: a shell in your browser, or Jupyter. Its files live on the shared checkpoint folder,
            so if it is preempted after its protected time, or you end it, it comes back with them on new GPUs.
          </p>
        </div>
      </div>
      <StartSessionForm />
    </>
  );
}
