#!/usr/bin/env python3
"""tests/mesh/check_vtu.py FILE: parse the .vtu that t901_mesh wrote with xml.etree and check it against FILE.expect
(npoints ncells field names...): counts of points, cells, connectivity, offsets, types and of each point field."""
import sys
import xml.etree.ElementTree as ET


def values(arr):
    return (arr.text or "").split()


def main():
    path = sys.argv[1]
    with open(path + ".expect") as f:
        words = f.read().split()
    npts, ncells, names = int(words[0]), int(words[1]), words[2:]
    root = ET.parse(path).getroot()
    assert root.tag == "VTKFile" and root.get("type") == "UnstructuredGrid", root.tag
    piece = root.find("UnstructuredGrid/Piece")
    assert int(piece.get("NumberOfPoints")) == npts and int(piece.get("NumberOfCells")) == ncells
    pts = piece.find("Points/DataArray")
    assert pts.get("NumberOfComponents") == "3" and len(values(pts)) == 3 * npts
    cells = {a.get("Name"): values(a) for a in piece.find("Cells").findall("DataArray")}
    assert len(cells["connectivity"]) == 3 * ncells
    assert [int(v) for v in cells["offsets"]] == [3 * (k + 1) for k in range(ncells)]
    assert cells["types"] == ["5"] * ncells
    conn = [int(v) for v in cells["connectivity"]]
    assert min(conn) >= 0 and max(conn) < npts
    fields = piece.find("PointData").findall("DataArray")
    assert [a.get("Name") for a in fields] == [n.replace("%26", "&").replace("%3C", "<") for n in names], \
        [a.get("Name") for a in fields]
    for a in fields:
        assert len(values(a)) == npts
        [float(v) for v in values(a)]


if __name__ == "__main__":
    main()
