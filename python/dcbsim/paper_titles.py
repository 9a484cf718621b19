"""The papers whose claims ``dcbsim repro`` checks, by key: kept apart from
:mod:`dcbsim.papers` so that the command line lists them without loading the checks."""

#: Each paper's citation, by its key.
TITLES = {
    "qcnt": "QCN-T: R. Shu, J. Zhang, F. Ren, C. Lin, "
            "\"Analysing Convergence of Quantized Congestion Notification in Data Center Ethernet\"",
    "smcc": "SMCC: W. Jiang, F. Ren, R. Shu, C. Lin et al., \"Sliding Mode Congestion Control for Data Center Ethernet Networks\" (§3, §5)",
    "dsm": "DSM: W. Cheng, W. Jiang, T. Zhang, B. Wang, K. Qian, F. Ren, "
           "\"Congestion Control in Converged Ethernet with Heterogeneous and Time-Varying Delays\" (Figs. 5, 6–10, §VI)",
    "fqcn": "FQCN: Y. Zhang, N. Ansari, \"Fair Quantized Congestion Notification in Data Center Networks\" (§VI, Figs. 4, 5, 6, 7, 8)",
    "dcc": "DCC: S. Fang, C. H. Foh, K. M. M. Aung, "
           "\"Differentiated Congestion Management of Data Traffic for Data Center Ethernet\" (§VI, Exps. 1–5)",
    "dcqcn": "DCQCN: Y. Zhu et al., \"Congestion Control for Large-Scale RDMA Deployments\" (SIGCOMM 2015), §2 and §6",
    "hpcc": "HPCC: Y. Li et al., \"HPCC: High Precision Congestion Control\" (SIGCOMM 2019), §3 and §5",
    "timely": "TIMELY: R. Mittal et al., \"TIMELY: RTT-based Congestion Control for the Datacenter\" (SIGCOMM 2015), "
              "with Y. Zhu et al., \"ECN or Delay: Lessons Learnt from Analysis of DCQCN and TIMELY\" (CoNEXT 2016)",
    "dctcp": "DCTCP: M. Alizadeh et al., \"Data Center TCP (DCTCP)\" (SIGCOMM 2010), "
             "with M. Alizadeh, A. Javanmard, B. Prabhakar, \"Analysis of DCTCP\" (SIGMETRICS 2011)",
}
