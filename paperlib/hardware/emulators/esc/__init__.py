"""EtherCAT slave controller (ESC) emulator: frames, datagrams, registers, SII, mailbox/CoE.

A pure-Python model of the parts of an EtherCAT slave controller that a real master
(SOEM through pysoem) exercises when it scans, configures and runs a chain, one concept per
module:

* :mod:`.frames` -- frame and datagram parsing (EtherType 0x88A4, several datagrams per frame)
  and building;
* :mod:`.registers` -- the register map (ESC information 0x0000.., station address 0x0010,
  DL control/status 0x0100/0x0110, AL control/status/status code 0x0120/0x0130/0x0134, PDI
  control 0x0140, watchdogs 0x0400.., SII interface 0x0500-0x050F, FMMUs 0x0600..,
  SyncManagers 0x0800.., distributed clocks 0x0900-0x09A7), the AL states and status codes;
* :mod:`.sii` -- the SII EEPROM image with the categories SOEM reads (strings, general, FMMU,
  SyncM, TXPDO, RXPDO) and its builder;
* :mod:`.coe` -- mailbox types and a CoE server (SDO upload/download, expedited and normal,
  SDO abort sent as CoE service 2 = SDO request with command 0x80 as ETG.1000.6 specifies,
  which is what SOEM recognises as an abort) over an object dictionary;
* :mod:`.slave` -- one slave controller (:class:`EscSlave`): registers with read-only bytes
  and side effects, SII reads (4 or 8 bytes through 0x0502/0x0504/0x0508), FMMUs (logical
  addressing, bit-granular), mailbox SyncManagers (SM0 master -> slave, SM1 slave -> master)
  with "mailbox full" semantics, the AL state machine INIT -> PRE-OP -> SAFE-OP -> OP with AL
  status codes for invalid transitions and SyncManager configurations, and the DC registers;
* :mod:`.chain` -- the line of slaves (:class:`EscChain`) every frame passes through in order,
  with all addressing modes (auto-increment APRD/APWR/APRW/ARMW: every slave increments ADP,
  the one that sees 0 is addressed; configured station address FPRD/FPWR/FPRW/FRMW; broadcast
  BRD/BWR/BRW, BRD data OR-ed; logical LRD/LWR/LRW through the FMMUs) and the working-counter
  rules of ETG.1000.4 (+1 per slave for a successful read or write; for the read-write
  commands +1 (read) +2 (write), i.e. +3 when both succeed);
* :mod:`.server` -- :func:`serve` runs a chain on a raw ``AF_PACKET`` socket bound to one end
  of a veth pair, with frame-level fault injection (:class:`FrameFaults`).

Device behaviour (what a coupler or a drive does with its process data) lives in subclasses
of :class:`EscSlave` (see :mod:`paperlib.hardware.emulators.devices`).

Simplifications (documented, deliberate): one buffer per process-data SyncManager instead of
the ESC's three-buffer mode; no EEPROM write protection; no SDO Information service, no
segmented SDO transfer, no complete access; DC is a model of the registers SOEM's
``ecx_configdc``/``ecx_dcsync0`` read and write (no SYNC0 pulse generation).

Every name callers import is re-exported here.
"""

from __future__ import annotations

from .chain import EscChain
from .coe import (
    COE_SDO_REQUEST,
    COE_SDO_RESPONSE,
    SDO_ABORT_TEXT,
    AbortRule,
    CoeServer,
    ObjectDictionary,
    OdEntry,
    SdoAbort,
)
from .frames import ETHERTYPE_ECAT, Cmd, build_frame, parse_frame
from .registers import AlState, AlStatusCode
from .server import FrameFaults, serve, serve_until_signalled, slave_reports
from .sii import FmmuEntry, PdoEntrySpec, PdoSpec, SiiImage, SmEntry, build_sii
from .slave import EscSlave

__all__ = [
    "ETHERTYPE_ECAT",
    "Cmd",
    "AlState",
    "AlStatusCode",
    "SdoAbort",
    "SDO_ABORT_TEXT",
    "COE_SDO_REQUEST",
    "COE_SDO_RESPONSE",
    "FmmuEntry",
    "SmEntry",
    "PdoEntrySpec",
    "PdoSpec",
    "SiiImage",
    "build_sii",
    "OdEntry",
    "ObjectDictionary",
    "AbortRule",
    "CoeServer",
    "EscSlave",
    "EscChain",
    "FrameFaults",
    "serve",
    "serve_until_signalled",
    "slave_reports",
    "build_frame",
    "parse_frame",
]
