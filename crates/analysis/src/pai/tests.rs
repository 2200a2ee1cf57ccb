//! Hand-worked tests of the PAI analyses that share a tiny store: the wait
//! analyses (A8-A11), the workload mix (recurrence, gang tasks) and capacity
//! (supply vs demand, allocation by GPU type). Expected values are worked
//! out by hand in each fixture's comment.

mod wait {
    use polars::df;

    use crate::output::Body;
    use crate::pai::task_share_by_gpu::TaskShareByGpu;
    use crate::pai::wait_by_gpu_request::WaitByGpuRequest;
    use crate::pai::wait_by_gpu_type::WaitByGpuType;
    use crate::pai::wait_over_completion::WaitOverCompletion;
    use crate::testkit;
    use tracelab_schema::pai::{GROUP_TAG, INSTANCE, JOB, TASK};

    /// Three tasks of one job submitted at t=0 (job start 0):
    /// - a/t1: task start 10, end 110 (completion 100), plan_gpu 50, T4;
    ///   instances start 40 and 30 -> wait 20, runtimes 60 and 70 -> mean 65.
    /// - a/t2: task start 20, end 60 (completion 40), plan_gpu 100, V100;
    ///   instance start 50 -> wait 30, runtime 10.
    /// - a/t3: task start 30, end 1030 (completion 1000), plan_gpu 200, V100;
    ///   instance start 40 -> wait 10, runtime 990.
    ///
    /// Median mean-instance runtime = 65: short = {t1, t2}, long = {t3}.
    /// Ratios: t1 20 %, t2 75 %, t3 1 %. Short > 50 %: 1 of 2; all: 1 of 3.
    fn tiny() -> testkit::TinyStore {
        testkit::store(vec![
            (&JOB, df!("job_name" => ["a"], "inst_id" => ["i"], "user" => ["u"], "status" => ["Terminated"], "start_time" => [0i64], "end_time" => [2000i64]).unwrap()),
            (
                &TASK,
                df!("job_name" => ["a", "a", "a"], "task_name" => ["t1", "t2", "t3"], "inst_num" => [2i64, 1, 1],
                    "status" => ["Terminated"; 3], "start_time" => [10i64, 20, 30], "end_time" => [110i64, 60, 1030],
                    "plan_gpu_pct" => [50.0, 100.0, 200.0], "gpu_type" => ["T4", "V100", "V100"])
                .unwrap(),
            ),
            (
                &INSTANCE,
                df!("job_name" => ["a", "a", "a", "a"], "task_name" => ["t1", "t1", "t2", "t3"],
                    "inst_name" => ["x1", "x2", "x3", "x4"], "worker_name" => ["w1", "w2", "w3", "w4"],
                    "inst_id" => ["i"; 4], "status" => ["Terminated"; 4], "start_time" => [40i64, 30, 50, 40],
                    "end_time" => [100i64, 100, 60, 1030], "machine" => ["m"; 4], "run_s" => [60.0, 70.0, 10.0, 990.0])
                .unwrap(),
            ),
            (&GROUP_TAG, df!("inst_id" => ["i"], "user" => ["u"]).unwrap()),
        ])
    }

    #[test]
    fn wait_over_completion_by_hand() {
        let t = tiny();
        let out = testkit::run(&WaitOverCompletion, &t, &[]);
        let h: Vec<(&str, f64)> = out.all_headlines().map(|h| (h.key.as_str(), h.value)).collect();
        assert_eq!(h[..2], [("short_over_half", 50.0), ("long_over_half", 0.0)]);
        // All tasks (the notebook's middle curve): 1 of 3 waits over half.
        assert_eq!(h[2].0, "all_over_half");
        assert!((h[2].1 - 100.0 / 3.0).abs() < 1e-12, "{h:?}");
        let Body::Dists { series, .. } = &out.part("ratio").unwrap().body else { panic!() };
        assert_eq!(series[1].1.values(), &[1.0, 20.0, 75.0]);
        assert_eq!(series[2].1.values(), &[20.0, 75.0]);
    }

    /// README definition: the job's earliest task start (10) - job start (0)
    /// = 10 s for every task.
    #[test]
    fn the_readme_wait_definition_is_available() {
        let t = tiny();
        let out = testkit::run(&WaitByGpuType, &t, &[("wait", "job-to-task")]);
        let Body::Dists { series, .. } = &out.part("by-type").unwrap().body else { panic!() };
        assert_eq!(series[3].1.values(), &[10.0]);
        assert_eq!(series[3].1.n(), 2);
        let notebook = testkit::run(&WaitByGpuType, &t, &[]);
        let Body::Dists { series, .. } = &notebook.part("by-type").unwrap().body else { panic!() };
        assert_eq!(series[0].1.values(), &[20.0]);
        assert_eq!(series[3].1.values(), &[10.0, 30.0]);
    }

    /// Bins: 50 -> 50-100 %, 100 -> 1 GPU, 200 -> >1 GPU; sharing = {t1}
    /// (wait 20), whole = {t2, t3} (waits 30, 10).
    #[test]
    fn wait_by_gpu_request_bins_and_splits() {
        let t = tiny();
        let out = testkit::run(&WaitByGpuRequest, &t, &[]);
        let Body::Dists { series, .. } = &out.part("by-bin").unwrap().body else { panic!() };
        let ns: Vec<u64> = series.iter().map(|s| s.1.n()).collect();
        assert_eq!(ns, vec![0, 0, 1, 1, 1]);
        assert_eq!(out.all_headlines().next().unwrap().value, 20.0);
        let shares = testkit::run(&TaskShareByGpu, &t, &[]);
        let v100 = shares.all_headlines().find(|h| h.key == "GPU type: V100").unwrap();
        assert!((v100.value - 200.0 / 3.0).abs() < 1e-9);
    }
}

mod mix {
    use polars::df;

    use crate::output::Output;
    use crate::pai::gang_and_constraints::GangAndConstraints;
    use crate::pai::recurrence::Recurrence;
    use crate::testkit;
    use tracelab_schema::pai::{GROUP_TAG, INSTANCE, JOB, TASK};

    /// Jobs a (u, tag g1, names V100), b (u, tag g1), c (v, untagged), one
    /// task each with one instance row: a/t inst_num 3 plan_gpu 100, b/t 1 x
    /// 50, c/t 1 x 200.
    fn tiny() -> testkit::TinyStore {
        testkit::store(vec![
            (&JOB, df!("job_name" => ["a", "b", "c"], "inst_id" => ["i1", "i2", "i3"], "user" => ["u", "u", "v"], "status" => ["Terminated"; 3]).unwrap()),
            (
                &TASK,
                df!("job_name" => ["a", "b", "c"], "task_name" => ["t"; 3], "inst_num" => [3i64, 1, 1], "status" => ["Terminated"; 3],
                    "plan_gpu_pct" => [100.0, 50.0, 200.0])
                .unwrap(),
            ),
            (
                &INSTANCE,
                df!("job_name" => ["a", "b", "c"], "task_name" => ["t"; 3], "inst_name" => ["x", "y", "z"], "worker_name" => ["w1", "w2", "w3"],
                    "inst_id" => ["i1", "i2", "i3"], "status" => ["Terminated"; 3])
                .unwrap(),
            ),
            (
                &GROUP_TAG,
                df!("inst_id" => ["i1", "i2", "i3"], "user" => ["u", "u", "v"], "group" => [Some("g1"), Some("g1"), None],
                    "gpu_type_spec" => [Some("V100"), None, None])
                .unwrap(),
            ),
        ])
    }

    fn headline(out: &Output, key: &str) -> f64 {
        out.all_headlines().find(|h| h.key == key).unwrap().value
    }

    /// Instances 3 + 1 + 1 = 5, in gang tasks 3: 60 %. GPUs 3*1 + 0.5 + 2 =
    /// 5.5, gang 3: 300/5.5 %. One of three tasks names a type.
    #[test]
    fn gang_and_constraint_shares_by_hand() {
        let t = tiny();
        let out = testkit::run(&GangAndConstraints, &t, &[]);
        assert!((headline(&out, "gang_instances") - 60.0).abs() < 1e-12);
        assert!((headline(&out, "gang_gpu_demand") - 300.0 / 5.5).abs() < 1e-12);
        assert!((headline(&out, "gpu_type_spec") - 100.0 / 3.0).abs() < 1e-12);
    }

    /// Groups g1 (a, b) and v (c, untagged -> user): with min-group 2, two of
    /// three tasks recur; dropping untagged tasks leaves g1 only (100 %).
    #[test]
    fn recurrence_by_hand() {
        let t = tiny();
        let out = testkit::run(&Recurrence, &t, &[("min-group", "2")]);
        assert!((headline(&out, "recurring_tasks") - 200.0 / 3.0).abs() < 1e-12);
        assert_eq!(headline(&out, "groups"), 2.0);
        let out = testkit::run(&Recurrence, &t, &[("min-group", "2"), ("untagged", "drop")]);
        assert_eq!(headline(&out, "recurring_tasks"), 100.0);
    }
}

mod capacity {
    use polars::df;
    use polars::prelude::DataFrame;

    use crate::output::{Body, ResultTable};
    use crate::pai::allocation_by_gpu_type::AllocationByGpuType;
    use crate::pai::supply_demand::SupplyDemand;
    use crate::testkit;
    use tracelab_schema::pai::MACHINE_SPEC;
    use tracelab_schema::pai::{GROUP_TAG, INSTANCE, TASK};

    /// Machines e (V100, 96 vCPU, 8 GPUs), t (T4, 64 vCPU, 2 GPUs), c
    /// (CPU-only, 96 vCPU). Instances: e1 on e [0,1000) plan 1200 % CPU,
    /// 100 % GPU; e2 on e [0,500) 300 %, 50 %; c1 on c [0,1000) 400 %, no GPU.
    fn tiny() -> testkit::TinyStore {
        testkit::store(vec![
            (&GROUP_TAG, DataFrame::empty()),
            (
                &MACHINE_SPEC,
                df!("machine" => ["e", "t", "c"], "gpu_type" => ["V100", "T4", "CPU"], "cap_cpu" => [96i64, 64, 96],
                    "cap_mem_gib" => [512i64; 3], "cap_gpu" => [8i64, 2, 0])
                .unwrap(),
            ),
            (
                &TASK,
                df!("job_name" => ["j"; 3], "task_name" => ["a", "b", "c"], "inst_num" => [1i64; 3], "status" => ["Terminated"; 3],
                    "plan_cpu_pct" => [Some(1200.0), Some(300.0), Some(400.0)], "plan_gpu_pct" => [Some(100.0), Some(50.0), None])
                .unwrap(),
            ),
            (
                &INSTANCE,
                df!("job_name" => ["j"; 3], "task_name" => ["a", "b", "c"], "inst_name" => ["x", "y", "z"],
                    "worker_name" => ["e1", "e2", "c1"], "inst_id" => ["i"; 3], "status" => ["Terminated"; 3],
                    "start_time" => [0i64, 0, 0], "end_time" => [1000i64, 500, 1000], "machine" => ["e", "e", "c"],
                    "run_s" => [1000.0, 500.0, 1000.0])
                .unwrap(),
            ),
        ])
    }

    fn cell(t: &ResultTable, row: &str, column: &str) -> f64 {
        let i = t.rows.iter().position(|r| r[0] == row.into()).unwrap();
        t.column(column).unwrap()[i].as_f64().unwrap()
    }

    /// Supply: 8-GPU 96/8 = 12, 2-GPU 64/2 = 32, cluster 256/10 = 25.6.
    /// Demand on e: plain (1200 + 300) / (100 + 50) = 10; runtime-weighted
    /// (1200*1000 + 300*500) / (100*1000 + 50*500) = 1.35e6 / 1.25e5 = 10.8.
    /// Cluster adds c1: plain 1900/150; weighted 1.75e6 / 1.25e5 = 14.
    #[test]
    fn supply_and_demand_by_hand() {
        let t = tiny();
        let out = testkit::run(&SupplyDemand, &t, &[]);
        let Body::Table(r) = &out.part("ratios").unwrap().body else { panic!() };
        assert_eq!(cell(r, "8-GPU", "supply_vcpu_per_gpu"), 12.0);
        assert_eq!(cell(r, "2-GPU", "supply_vcpu_per_gpu"), 32.0);
        assert!((cell(r, "cluster", "supply_vcpu_per_gpu") - 25.6).abs() < 1e-12);
        assert_eq!(cell(r, "8-GPU", "demand_plain"), 10.0);
        assert!((cell(r, "8-GPU", "demand_time_weighted") - 10.8).abs() < 1e-12);
        assert!((cell(r, "cluster", "demand_plain") - 1900.0 / 150.0).abs() < 1e-12);
        assert!((cell(r, "cluster", "demand_time_weighted") - 14.0).abs() < 1e-12);
    }

    /// Window [0, 1000). e: GPU (1*1000 + 0.5*500) / (8*1000) = 15.625 %,
    /// CPU (12*1000 + 3*500) / (96*1000) = 14.0625 %. V100 matrix with
    /// 500 s bins: bin 0 (1 + 0.5) / 8 = 18.75 %, bin 1 1/8 = 12.5 %.
    #[test]
    fn allocation_by_hand() {
        let t = tiny();
        let out = testkit::run(&AllocationByGpuType, &t, &[("bin", "500s")]);
        let Body::Table(by) = &out.part("by-type").unwrap().body else { panic!() };
        assert_eq!(cell(by, "V100", "gpu_alloc_pct"), 15.625);
        assert_eq!(cell(by, "V100", "cpu_alloc_pct"), 14.0625);
        assert!((cell(by, "CPU", "cpu_alloc_pct") - 100.0 * 4.0 / 96.0).abs() < 1e-12);
        let Body::Table(m) = &out.part("v100-load").unwrap().body else { panic!() };
        let v: Vec<f64> = m.column("value").unwrap().iter().map(|c| c.as_f64().unwrap()).collect();
        assert_eq!(v, vec![18.75, 12.5]);
    }
}

mod hourly {
    use polars::df;

    use crate::output::{Body, Output};
    use crate::pai::hourly_requests::HourlyRequests;
    use crate::pai::hourly_submissions::HourlySubmissions;
    use crate::testkit;
    use tracelab_schema::pai::{GROUP_TAG, INSTANCE, JOB, TASK};

    /// Hour 0 of the week: hourofyear 600 = 1970-01-25 00:00 UTC+8 =
    /// 1970-01-24 16:00 UTC = 23 days + 16 h after the epoch, in seconds.
    const HOUR0: i64 = 23 * 86_400 + 16 * 3600;

    /// Tasks a/t0, a/t167, a/t168 start (with their one instance) at hours 0,
    /// 167 and 168 of the week, requesting 1, 2 and 3 GPUs.
    fn week() -> testkit::TinyStore {
        let starts: Vec<i64> = [0, 167, 168].iter().map(|h| HOUR0 + h * 3600).collect();
        testkit::store(vec![
            (&JOB, df!("job_name" => ["a"], "inst_id" => ["i"], "user" => ["u"], "start_time" => [HOUR0]).unwrap()),
            (
                &TASK,
                df!("job_name" => ["a"; 3], "task_name" => ["t0", "t167", "t168"], "inst_num" => [1i64; 3],
                    "start_time" => &starts, "plan_gpu_pct" => [100.0, 200.0, 300.0])
                .unwrap(),
            ),
            (
                &INSTANCE,
                df!("job_name" => ["a"; 3], "task_name" => ["t0", "t167", "t168"], "worker_name" => ["w0", "w1", "w2"],
                    "start_time" => &starts)
                .unwrap(),
            ),
            (&GROUP_TAG, df!("inst_id" => ["i"], "user" => ["u"]).unwrap()),
        ])
    }

    fn curve(out: &Output, part: &str, label: &str) -> Vec<(f64, f64)> {
        let Body::Curves { series, .. } = &out.part(part).unwrap().body else { panic!() };
        series.iter().find(|s| s.0 == label).unwrap().1.clone()
    }

    /// A3 plots `0 <= hour < 24*7+1` (hours 0..=168), A5 `0 <= hour < 24*7`
    /// (hours 0..=167): the task at hour 168 is in the submissions, not in
    /// the requests.
    #[test]
    fn the_submissions_week_ends_at_hour_168_and_the_requests_week_at_167() {
        let t = week();
        let tasks = curve(&testkit::run(&HourlySubmissions, &t, &[]), "tasks", "tasks");
        assert_eq!(tasks, [(0.0, 1.0), (167.0, 1.0), (168.0, 1.0)]);
        let gpus = curve(&testkit::run(&HourlyRequests, &t, &[]), "requests", "GPU (GPUs)");
        assert_eq!(gpus, [(0.0, 1.0), (167.0, 2.0)]);
    }
}
