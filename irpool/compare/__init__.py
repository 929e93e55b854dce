"""Comparison with OpenVINO's CPU plugin, tensor by tensor (`irpool compare`); needs
`openvino` (the `compare` extra), imported only when a comparison runs."""
