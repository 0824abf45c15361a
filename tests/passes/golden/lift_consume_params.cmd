lift --consume-params
