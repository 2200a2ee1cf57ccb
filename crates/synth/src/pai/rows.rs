//! Row formatting for the seven PAI tables, byte for byte as pandas wrote
//! them: floats as Python `repr` (`4550879.0`, `29.296875`), NaN as an empty
//! field, whole-number columns that held NaNs as floats (`inst_num` `1.0`,
//! times `1739162.0`), and `pai_machine_metric` times as plain integers.
//! Column order is that of `schema::raw::pai`.

use super::super::pyfmt::push_py_float;

/// An offset time as pandas wrote a float column: `2081336.0`, or empty.
pub fn push_time(out: &mut String, t: Option<i64>) {
    if let Some(t) = t {
        push_int(out, t);
        out.push_str(".0");
    }
}

pub fn push_int(out: &mut String, v: i64) {
    use std::fmt::Write;
    write!(out, "{v}").expect("writing to a String");
}

/// A float, or empty for NaN/None.
pub fn push_opt(out: &mut String, v: Option<f64>) {
    if let Some(v) = v {
        push_py_float(out, v);
    }
}

fn fields(out: &mut String, parts: &[&str]) {
    for (i, p) in parts.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(p);
    }
}

/// `job_name,inst_id,user,status,start_time,end_time`
pub fn job(out: &mut String, name: &str, inst_id: &str, user: &str, status: &str, start: i64, end: Option<i64>) {
    fields(out, &[name, inst_id, user, status]);
    out.push(',');
    push_time(out, Some(start));
    out.push(',');
    push_time(out, end);
}

/// One task row's values.
pub struct TaskRow<'a> {
    pub job: &'a str,
    pub name: &'a str,
    pub inst_num: u32,
    pub status: &'a str,
    pub start: i64,
    pub end: Option<i64>,
    pub plan_cpu: f64,
    pub plan_mem: f64,
    pub plan_gpu: Option<f64>,
    pub gpu_type: &'a str,
}

/// `job_name,task_name,inst_num,status,start_time,end_time,plan_cpu,plan_mem,plan_gpu,gpu_type`
pub fn task(out: &mut String, r: &TaskRow<'_>) {
    fields(out, &[r.job, r.name]);
    out.push(',');
    push_py_float(out, r.inst_num as f64);
    out.push(',');
    out.push_str(r.status);
    out.push(',');
    push_time(out, Some(r.start));
    out.push(',');
    push_time(out, r.end);
    out.push(',');
    push_py_float(out, r.plan_cpu);
    out.push(',');
    push_py_float(out, r.plan_mem);
    out.push(',');
    push_opt(out, r.plan_gpu);
    out.push(',');
    out.push_str(r.gpu_type);
}

/// One instance row's values.
pub struct InstanceRow<'a> {
    pub job: &'a str,
    pub task: &'a str,
    pub inst_name: &'a str,
    pub worker: &'a str,
    pub inst_id: &'a str,
    pub status: &'a str,
    pub start: Option<i64>,
    pub end: Option<i64>,
    pub machine: &'a str,
}

/// `job_name,task_name,inst_name,worker_name,inst_id,status,start_time,end_time,machine`
pub fn instance(out: &mut String, r: &InstanceRow<'_>) {
    fields(out, &[r.job, r.task, r.inst_name, r.worker, r.inst_id, r.status]);
    out.push(',');
    push_time(out, r.start);
    out.push(',');
    push_time(out, r.end);
    out.push(',');
    out.push_str(r.machine);
}

/// The ten measured values of a sensor row, in column order: cpu_usage,
/// gpu_wrk_util, avg_mem, max_mem, avg_gpu_wrk_mem, max_gpu_wrk_mem, read,
/// write, read_count, write_count (None = empty).
pub type SensorValues = [Option<f64>; 10];

/// `job_name,task_name,worker_name,inst_id,machine,gpu_name,cpu_usage,...,write_count`
#[allow(clippy::too_many_arguments)]
pub fn sensor(
    out: &mut String,
    job: &str,
    task: &str,
    worker: &str,
    inst_id: &str,
    machine: &str,
    gpu_name: &str,
    v: &SensorValues,
) {
    fields(out, &[job, task, worker, inst_id, machine, gpu_name]);
    for x in v {
        out.push(',');
        push_opt(out, *x);
    }
}

/// `inst_id,user,gpu_type_spec,group,workload`
pub fn group_tag(out: &mut String, inst_id: &str, user: &str, spec: &str, group: &str, workload: &str) {
    fields(out, &[inst_id, user, spec, group, workload]);
}

/// The eight machine values in column order: cpu_iowait, cpu_kernel,
/// cpu_usr, gpu, load_1, net_receive, num_worker, cpu (None = empty).
pub type MetricValues = [Option<f64>; 8];

/// `worker_name,machine,start_time,end_time,machine_cpu_iowait,...,machine_cpu`
pub fn machine_metric(out: &mut String, worker: &str, machine: &str, start: i64, end: i64, v: &MetricValues) {
    fields(out, &[worker, machine]);
    out.push(',');
    push_int(out, start);
    out.push(',');
    push_int(out, end);
    for x in v {
        out.push(',');
        push_opt(out, *x);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The owners' README example row of each table (copied verbatim from
    /// `real-traces/pai/readme-example-rows/`).
    fn example(table: &str) -> &'static str {
        match table {
            "pai_group_tag_table" => "f7f6218cb5cb82e00b85476691d15d5055c143a351396d8f81737421dbd6,d2d3b77d342e,V100M32,fbeb14d671c629b6e82bee889fe4bb4c,nmt",
            "pai_instance_table" => "af724763f4f5d0beef445849,worker,0d39aa867a79c16eff67daa8f6248f09af8346b177c9e3e23645c48354a8,54dbcd2db287841c03d0639b2a93e783a090ea085348f8cdb8e603d8b96f,e387fbc18d80cc3c9ca4f1f13ff1d46778c9a25eaaeca2a95314fdf20d8e,Terminated,2081336.0,2083889.0,471dda9ed84965451e042145",
            "pai_job_table" => "4b3f04b66a525d2df903eb16,8cb3bec23d14dbde320b6613452e768cbbf35b8bd64ee28fcceb77d3c47d,58540f191766,Terminated,4550879.0,4551416.0",
            "pai_machine_metric" => "b739d0d058e0db100aaf47e48a4d61320c95c2f5a334a8262d5e830d849c,74e1c8457b01c76b314b22bb,6150435,6150689,0.0028667003281999497,3.583656890012642,14.928745108999438,87.82875849911859,18.298592909228066,111649584.57135652,5.053068410462776,18.515268699340282",
            "pai_machine_spec" => "82e5af3cd5c4af3f56c62c54,T4,96,512,2",
            "pai_sensor_table" => "a9449d475665e3bf0512520b,worker,bcecec52225d6b4ae6bc724ce0269a02026195a364f54cf4850c2cca0054,589de47b56f88129837f506134b874e0356dc0931732a687bcf907fb8325,6884752e3565b15cafe14218,/dev/nvidia0,140.1451612903226,16.0625,1.4627511160714286,2.3935546875,1.2446746826171875,2.3994140625,21271328.384615384,16376189.815384615,2922.4461538461537,3419.7846153846153",
            "pai_task_table" => "4f057009a5d481acec67b088,tensorflow,1.0,Terminated,1739162.0,1739200.0,600.0,29.296875,50.0,MISC",
            _ => unreachable!("no example for {table}"),
        }
    }

    #[test]
    fn job_and_task_rows_match_the_readme_examples() {
        let mut s = String::new();
        job(
            &mut s,
            "4b3f04b66a525d2df903eb16",
            "8cb3bec23d14dbde320b6613452e768cbbf35b8bd64ee28fcceb77d3c47d",
            "58540f191766",
            "Terminated",
            4550879,
            Some(4551416),
        );
        assert_eq!(s, example("pai_job_table"));
        let mut s = String::new();
        task(
            &mut s,
            &TaskRow {
                job: "4f057009a5d481acec67b088",
                name: "tensorflow",
                inst_num: 1,
                status: "Terminated",
                start: 1739162,
                end: Some(1739200),
                plan_cpu: 600.0,
                plan_mem: 30000.0 / 1024.0,
                plan_gpu: Some(50.0),
                gpu_type: "MISC",
            },
        );
        assert_eq!(s, example("pai_task_table"));
    }

    #[test]
    fn instance_sensor_tag_and_metric_rows_match_the_readme_examples() {
        let mut s = String::new();
        instance(
            &mut s,
            &InstanceRow {
                job: "af724763f4f5d0beef445849",
                task: "worker",
                inst_name: "0d39aa867a79c16eff67daa8f6248f09af8346b177c9e3e23645c48354a8",
                worker: "54dbcd2db287841c03d0639b2a93e783a090ea085348f8cdb8e603d8b96f",
                inst_id: "e387fbc18d80cc3c9ca4f1f13ff1d46778c9a25eaaeca2a95314fdf20d8e",
                status: "Terminated",
                start: Some(2081336),
                end: Some(2083889),
                machine: "471dda9ed84965451e042145",
            },
        );
        assert_eq!(s, example("pai_instance_table"));
        let mut s = String::new();
        sensor(
            &mut s,
            "a9449d475665e3bf0512520b",
            "worker",
            "bcecec52225d6b4ae6bc724ce0269a02026195a364f54cf4850c2cca0054",
            "589de47b56f88129837f506134b874e0356dc0931732a687bcf907fb8325",
            "6884752e3565b15cafe14218",
            "/dev/nvidia0",
            &[
                Some(140.1451612903226),
                Some(16.0625),
                Some(1.4627511160714286),
                Some(2.3935546875),
                Some(1.2446746826171875),
                Some(2.3994140625),
                Some(21271328.384615384),
                Some(16376189.815384615),
                Some(2922.4461538461537),
                Some(3419.7846153846153),
            ],
        );
        assert_eq!(s, example("pai_sensor_table"));
        let mut s = String::new();
        group_tag(
            &mut s,
            "f7f6218cb5cb82e00b85476691d15d5055c143a351396d8f81737421dbd6",
            "d2d3b77d342e",
            "V100M32",
            "fbeb14d671c629b6e82bee889fe4bb4c",
            "nmt",
        );
        assert_eq!(s, example("pai_group_tag_table"));
        let mut s = String::new();
        machine_metric(
            &mut s,
            "b739d0d058e0db100aaf47e48a4d61320c95c2f5a334a8262d5e830d849c",
            "74e1c8457b01c76b314b22bb",
            6150435,
            6150689,
            &[
                Some(0.0028667003281999497),
                Some(3.583656890012642),
                Some(14.928745108999438),
                Some(87.82875849911859),
                Some(18.298592909228066),
                Some(111649584.57135652),
                Some(5.053068410462776),
                Some(18.515268699340282),
            ],
        );
        assert_eq!(s, example("pai_machine_metric"));
    }

    #[test]
    fn missing_values_are_empty_fields() {
        let mut s = String::new();
        job(&mut s, "j", "i", "u", "Running", 10, None);
        assert_eq!(s, "j,i,u,Running,10.0,");
        let mut s = String::new();
        task(
            &mut s,
            &TaskRow {
                job: "j",
                name: "ps",
                inst_num: 2,
                status: "Running",
                start: 10,
                end: None,
                plan_cpu: 400.0,
                plan_mem: 10000.0 / 1024.0,
                plan_gpu: None,
                gpu_type: "",
            },
        );
        assert_eq!(s, "j,ps,2.0,Running,10.0,,400.0,9.765625,,");
    }
}
