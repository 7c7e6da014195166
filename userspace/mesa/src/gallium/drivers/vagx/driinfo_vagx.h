/* vagx driconf options (none yet) */
